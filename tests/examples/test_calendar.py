"""calendar.py against an independent RFC 5545 implementation (recurring-ical-events).

The tool parses with the standard library and recurs with dateutil; the
reference reads the same files with icalendar and recurring-ical-events. Both
must list the same events, in the tool's format and order, for several
windows and two local time zones far apart.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from tests.helpers.examples import run_example
from tests.helpers.vdir import ROME_VTIMEZONE, Vdir, calendar, event, fold

LOCAL_ZONES = ["Europe/Rome", "Asia/Tokyo"]
WINDOWS = [
    (date(2026, 10, 1), 1),
    (date(2026, 10, 2), 1),
    (date(2026, 10, 24), 3),  # Europe leaves summer time on the 25th
    (date(2026, 9, 27), 45),
    (date(2026, 12, 31), 2),
    (date(2027, 3, 27), 3),  # and enters it on the 28th
]


def build_good(vdir: Vdir) -> None:
    """A varied vdir: every form the tool must read, as real clients write it."""
    standup = [
        "DTSTART;TZID=Europe/Rome:20260921T093000",
        "DTEND;TZID=Europe/Rome:20260921T094500",
        "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20261231T225959Z",
        "EXDATE;TZID=Europe/Rome:20261005T093000",
    ]
    vdir.add(
        "work",
        "standup",
        calendar(
            event("standup", "Standup", *standup),
            event(
                "standup",
                "Standup (moved)",
                "RECURRENCE-ID;TZID=Europe/Rome:20261007T093000",
                "DTSTART;TZID=Europe/Rome:20261007T150000",
                "DTEND;TZID=Europe/Rome:20261007T151500",
            ),
            event(
                "standup",
                "Standup",
                "RECURRENCE-ID;TZID=Europe/Rome:20261009T093000",
                "DTSTART;TZID=Europe/Rome:20261009T093000",
                "STATUS:CANCELLED",
            ),
            ROME_VTIMEZONE,
        ),
    )
    w = vdir.add_events
    w(
        "home",
        "rent",
        event(
            "rent",
            "Pay rent",
            "DTSTART:20260831T080000",
            "RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=6",
        ),
    )
    w(
        "home",
        "club",
        event(
            "club",
            "Book club",
            "DTSTART;TZID=America/Los_Angeles:20260925T190000",
            "DTEND;TZID=America/Los_Angeles:20260925T210000",
            "RRULE:FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20270301T000000Z",
        ),
    )
    w(
        "home",
        "birthday",
        event("bday", "Marco's birthday", "DTSTART;VALUE=DATE:19851002", "RRULE:FREQ=YEARLY"),
    )
    w(
        "home",
        "newyear",
        event(
            "ny",
            "New Year",
            "DTSTART;VALUE=DATE:20000101",
            "DTEND;VALUE=DATE:20000102",
            "RRULE:FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1",
        ),
    )
    w(
        "work",
        "auckland",
        event(
            "akl",
            "Call with Auckland",
            "DTSTART;TZID=Pacific/Auckland:20260928T080000",
            "DTEND;TZID=Pacific/Auckland:20260928T090000",
            "RRULE:FREQ=DAILY;COUNT=10",
        ),
    )
    w(
        "work",
        "kolkata",
        event(
            "kol",
            "Sync with Kolkata",
            "DTSTART;TZID=Asia/Kolkata:20261002T183000",
            "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;COUNT=8",
        ),
    )
    w(
        "work",
        "webinar",
        event(
            "utc",
            "UTC webinar",
            "DTSTART:20260924T220000Z",
            "DTEND:20260924T233000Z",
            "RRULE:FREQ=WEEKLY;COUNT=5",
        ),
    )
    w(
        "home",
        "lunch",
        event("lunch", "Lunch with Sara", "DTSTART:20261002T120000", "DTEND:20261002T130000"),
    )
    w(
        "home",
        "train",
        event("train", "Night train", "DTSTART:20261001T230000", "DTEND:20261002T013000"),
    )
    w(
        "home",
        "party",
        event(
            "party",
            "Party in New York",
            "DTSTART;TZID=America/New_York:20261023T200000",
            "DTEND;TZID=America/New_York:20261024T030000",
        ),
    )
    w(
        "home",
        "holiday",
        event("hol", "Holiday", "DTSTART;VALUE=DATE:20261023", "DTEND;VALUE=DATE:20261027"),
    )
    w(
        "home",
        "yoga",
        event(
            "yoga",
            "Yoga",
            "DTSTART:20260901T180000",
            "DTEND:20260901T190000",
            "RRULE:FREQ=WEEKLY;COUNT=10",
        ),
        event(
            "yoga",
            "Yoga (early)",
            "RECURRENCE-ID:20260929T180000",
            "DTSTART:20261002T070000",
            "DTEND:20261002T080000",
        ),
        event(
            "yoga",
            "Yoga (later)",
            "RECURRENCE-ID:20261006T180000",
            "DTSTART:20261120T180000",
            "DTEND:20261120T190000",
        ),
    )
    w(
        "home",
        "concert",
        event(
            "concert", "Concert", "DTSTART:20261003T210000", "RDATE:20261010T210000,20261017T210000"
        ),
    )
    w(
        "home",
        "room",
        event(
            "room",
            "Meeting\\, room 4\\; bring notes",
            "DTSTART:20261002T100000",
            "DTEND:20261002T110000",
        ),
    )
    w("home", "mum", event("mum", "Call mum", "DTSTART:20261002T000000"))
    dentist = event(
        "dentist",
        "Dentist",
        "DTSTART;TZID=Europe/Rome:20261026T083000",
        "DTEND;TZID=Europe/Rome:20261026T090000",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "DESCRIPTION:Dentist tomorrow",
        "TRIGGER:-P1D",
        "END:VALARM",
    )
    vdir.add("home", "dentist", fold(calendar(dentist, ROME_VTIMEZONE), 20, " "))
    review = event(
        "review",
        "Quarterly budget review and planning for the whole team, room 12",
        "DTSTART;TZID=Europe/Rome:20261002T160000",
        "DTEND;TZID=Europe/Rome:20261002T173000",
        "RRULE:FREQ=MONTHLY;INTERVAL=3;BYDAY=1FR;COUNT=4",
        "DESCRIPTION:A long description that goes on and on so that folding splits it",
    )
    vdir.add("work", "review", fold(calendar(review), 17, "\t"))
    lunch = vdir.root / "home" / "lunch.ics"
    lunch.write_text("\ufeff" + lunch.read_text())  # a byte order mark, as some exporters write
    (vdir.root / "work" / "ignored.ics.tmp").write_text("not a calendar")


def reference(root: Path, first: date, days: int, zone: str) -> str:
    """The listing as recurring-ical-events computes it, in the tool's format and order."""
    local = ZoneInfo(zone)
    lo = datetime.combine(first, datetime.min.time(), local)
    hi = datetime.combine(first + timedelta(days=days), datetime.min.time(), local)
    rows = []
    for path in sorted(root.rglob("*.ics")):
        cal = icalendar.Calendar.from_ical(path.read_bytes())
        for item in recurring_ical_events.of(cal).between(lo, hi):
            if str(item.get("STATUS", "")).upper() == "CANCELLED":
                continue  # the tool lists no cancelled event or occurrence
            summary = " ".join(str(item.get("SUMMARY", "")).split())
            start = item["DTSTART"].dt
            if not isinstance(start, datetime):
                rows.append((start, 0, "", summary))
                continue
            if start.tzinfo is not None:
                start = start.astimezone(local).replace(tzinfo=None)
            rows.append((start.date(), 1, start.strftime("%H:%M"), summary))
    if not rows:
        return "no events"
    return "\n".join(f"{d} {clock or 'all day'} {s}" for d, _, clock, s in sorted(rows))


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vdir = Vdir(tmp_path_factory.mktemp("calendars"))
    build_good(vdir)
    return vdir.root


@pytest.mark.parametrize("zone", LOCAL_ZONES)
@pytest.mark.parametrize(("first", "days"), WINDOWS)
def test_listing_matches_recurring_ical_events(
    good: Path, zone: str, first: date, days: int
) -> None:
    result = run_example(
        "calendar.py", first.isoformat(), str(days), CALENDAR_DIR=str(good), TZ=zone
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.rstrip("\n") == reference(good, first, days, zone)


def test_the_reference_and_the_tool_see_the_tricky_cases(good: Path) -> None:
    """Guard against a vacuous comparison: the hard cases really are in the windows."""
    out = run_example(
        "calendar.py", "2026-10-01", "45", CALENDAR_DIR=str(good), TZ="Europe/Rome"
    ).stdout
    for line in [
        "2026-10-01 23:00 Night train",
        "2026-10-02 07:00 Yoga (early)",
        "2026-10-02 00:00 Call mum",
        "2026-10-02 10:00 Meeting, room 4; bring notes",
        "2026-10-02 12:00 Lunch with Sara",
        "2026-10-02 16:00 Quarterly budget review and planning for the whole team, room 12",
        "2026-10-07 15:00 Standup (moved)",
        "2026-10-23 all day Holiday",
        "2026-10-24 02:00 Party in New York",
        "2026-10-26 08:30 Dentist",
        "2026-10-31 08:00 Pay rent",
        "2026-10-02 all day Marco's birthday",
    ]:
        assert line in out.splitlines()
    for gone in [
        "2026-10-05 09:30 Standup",
        "2026-10-09 09:30 Standup",
        "2026-10-07 09:30 Standup",
    ]:
        assert gone not in out
    assert "2026-10-06 18:00 Yoga" not in out  # moved away to November
    assert "2026-10-30 08:00" not in out  # BYMONTHDAY=31 skips shorter months


def test_default_start_is_today_and_days_one(good: Path) -> None:
    today = date.today()
    explicit = run_example("calendar.py", today.isoformat(), "1", CALENDAR_DIR=str(good))
    implicit = run_example("calendar.py", "", "", CALENDAR_DIR=str(good))
    assert implicit.returncode == 0 and implicit.stdout == explicit.stdout


def build_malformed(vdir: Vdir) -> None:
    vdir.add("broken", "garbage", "this is not a calendar at all\n")
    vdir.add(
        "broken",
        "unclosed",
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20261002T100000\r\n",
    )
    vdir.add("broken", "binary", "\x00\x01\x02BEGIN:VCALENDAR")
    (vdir.root / "broken" / "latin1.ics").write_bytes(
        calendar(event("latin", "Caf\xe9", "DTSTART:20261002T090000")).encode("latin-1")
    )
    vdir.add_events(
        "broken",
        "mixed",
        event("bad-date", "Bad date", "DTSTART:20261345T250000"),
        event("bad-rule", "Bad rule", "DTSTART:20261002T080000", "RRULE:FREQ=SOMETIMES"),
        event("no-start", "No start"),
        event("bad-duration", "Bad duration", "DTSTART:20261002T080000", "DURATION:one hour"),
        event("fine", "Still listed", "DTSTART:20261002T083000"),
    )


def test_malformed_files_are_reported_and_skipped(tmp_path: Path) -> None:
    vdir = Vdir(tmp_path / "calendars")
    build_good(vdir)
    clean = run_example(
        "calendar.py", "2026-10-02", "1", CALENDAR_DIR=str(vdir.root), TZ="Europe/Rome"
    )
    build_malformed(vdir)
    result = run_example(
        "calendar.py", "2026-10-02", "1", CALENDAR_DIR=str(vdir.root), TZ="Europe/Rome"
    )
    assert result.returncode == 0
    expected = sorted(
        clean.stdout.splitlines() + ["2026-10-02 08:30 Still listed", "2026-10-02 09:00 Caf\ufffd"]
    )
    assert sorted(result.stdout.splitlines()) == expected
    stderr = result.stderr
    for name in ["garbage.ics", "unclosed.ics", "binary.ics"]:
        assert f"skipped {vdir.root / 'broken' / name}" in stderr
    for uid in ["bad-date", "bad-rule", "no-start", "bad-duration"]:
        assert f"skipped event {uid} in {vdir.root / 'broken' / 'mixed.ics'}" in stderr
    assert "Traceback" not in stderr


def test_a_malformed_recurrence_id_skips_that_invite_only(tmp_path: Path) -> None:
    vdir = Vdir(tmp_path)
    vdir.add_events(
        "work",
        "invites",
        event("weekly", "Standup", "DTSTART:20261001T090000", "RRULE:FREQ=DAILY;COUNT=3"),
        event("weekly", "Moved standup", "DTSTART:20261002T110000", "RECURRENCE-ID:2026-10-02"),
        event("other", "Lunch", "DTSTART:20261002T130000"),
    )
    result = run_example("calendar.py", "2026-10-02", "1", CALENDAR_DIR=str(vdir.root), TZ="UTC")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["2026-10-02 09:00 Standup", "2026-10-02 13:00 Lunch"]
    invites = vdir.root / "work" / "invites.ics"
    assert f"skipped event weekly in {invites}: RECURRENCE-ID: " in result.stderr
    assert "Traceback" not in result.stderr


def test_until_and_zone_slips_are_mended(tmp_path: Path) -> None:
    vdir = Vdir(tmp_path)
    vdir.add_events(
        "c",
        "slips",
        # floating start with a UTC UNTIL (dateutil alone raises on this)
        event(
            "f", "Floating", "DTSTART:20261001T100000", "RRULE:FREQ=DAILY;UNTIL=20261003T080000Z"
        ),
        # zoned start with a DATE UNTIL: the last day is included
        event(
            "z",
            "Zoned",
            "DTSTART;TZID=Europe/Rome:20261001T200000",
            "RRULE:FREQ=DAILY;UNTIL=20261002",
        ),
        # a Windows zone name that dateutil cannot resolve: read as local time
        event("w", "Windows", "DTSTART;TZID=W. Europe Standard Time:20261001T120000"),
        # a floating event with a UTC EXDATE: the exception is that instant in local time
        # (recurring-ical-events reads this case differently: it moves the whole event to UTC)
        event(
            "e",
            "Evening",
            "DTSTART:20261001T180000",
            "RRULE:FREQ=DAILY;COUNT=3",
            "EXDATE:20261002T160000Z",
        ),
    )
    result = run_example(
        "calendar.py", "2026-10-01", "5", CALENDAR_DIR=str(vdir.root), TZ="Europe/Rome"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "2026-10-01 10:00 Floating",
        "2026-10-01 12:00 Windows",
        "2026-10-01 18:00 Evening",
        "2026-10-01 20:00 Zoned",
        "2026-10-02 10:00 Floating",
        "2026-10-02 20:00 Zoned",
        "2026-10-03 10:00 Floating",
        "2026-10-03 18:00 Evening",
    ]
    assert "unknown TZID 'W. Europe Standard Time'" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["next week", "1"], "start must be an ISO date"),
        (["2026-10-01", "zero"], "days must be a whole number from 1 to 366"),
        (["2026-10-01", "0"], "days must be a whole number"),
        (["2026-10-01", "9999"], "days must be a whole number"),
    ],
)
def test_bad_arguments_are_one_line_errors(good: Path, args: list[str], message: str) -> None:
    result = run_example("calendar.py", *args, CALENDAR_DIR=str(good))
    assert result.returncode != 0
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_folder_is_an_error(tmp_path: Path) -> None:
    result = run_example("calendar.py", "", "", CALENDAR_DIR=str(tmp_path / "absent"))
    assert result.returncode == 1
    assert "no calendar folder" in result.stderr


def test_self_check_passes() -> None:
    result = run_example("calendar.py", "--test")
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() == "calendar.py --test: ok"
