"""add_event.py writes RFC 5545 that icalendar reads and calendar.py lists; bad input is
refused with a reason and writes nothing."""

from __future__ import annotations

import stat
from datetime import date, datetime
from pathlib import Path

import icalendar
import pytest

from tests.helpers.examples import run_example

TITLE = "Lunch with Anna, Bob; and a title long enough to be folded at 75 octets ✓\\ok"


def test_an_event_is_valid_icalendar_and_read_back(tmp_path: Path) -> None:
    added = run_example("add_event.py", TITLE, "2030-01-06 13:00", "45", "",
                        CALENDAR_DIR=str(tmp_path))
    assert added.returncode == 0, added.stderr
    assert added.stdout == f"added to personal: 2030-01-06 13:00 {TITLE} (45 min)\n"
    (path,) = (tmp_path / "personal").glob("*.ics")
    data = path.read_bytes()
    assert all(len(line) <= 75 for line in data.split(b"\r\n"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (vevent,) = icalendar.Calendar.from_ical(data).walk("VEVENT")
    assert str(vevent["SUMMARY"]) == TITLE
    assert vevent.decoded("DTSTART") == datetime(2030, 1, 6, 13, 0)
    assert vevent.decoded("DTEND") == datetime(2030, 1, 6, 13, 45)
    assert str(vevent["UID"]).endswith("@desktop-assistant")
    listed = run_example("calendar.py", "2030-01-06", CALENDAR_DIR=str(tmp_path))
    assert listed.stdout == f"2030-01-06 13:00 {TITLE}\n"


def test_a_date_alone_is_an_all_day_event_in_the_named_calendar(tmp_path: Path) -> None:
    added = run_example("add_event.py", "Holiday", "2030-08-15", "", "family",
                        CALENDAR_DIR=str(tmp_path))
    assert added.stdout == "added to family: 2030-08-15 all day Holiday\n"
    (path,) = (tmp_path / "family").glob("*.ics")
    (vevent,) = icalendar.Calendar.from_ical(path.read_bytes()).walk("VEVENT")
    assert (vevent.decoded("DTSTART"), vevent.decoded("DTEND")) == (
        date(2030, 8, 15), date(2030, 8, 16)
    )


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("", "2030-01-06T13:00"), "the title must have 1 to 200 characters"),
        (("x" * 201, "2030-01-06T13:00"), "the title must have 1 to 200 characters"),
        (("Lunch", "tomorrow at one"), "start 'tomorrowTat one' is not an ISO date"),
        (("Lunch", "2030-01-06T13:00", "-5"), "minutes '-5' is not a whole number"),
        (("Lunch", "2030-01-06T13:00", "9999"), "minutes '9999' is not a whole number"),
        (("Lunch", "2030-01-06T13:00", "", "../../etc"), "is not a plain folder name"),
        (("Lunch", "2030-01-06T13:00", "", ".hidden"), "is not a plain folder name"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(
    tmp_path: Path, args: tuple[str, ...], reason: str
) -> None:
    refused = run_example("add_event.py", *args, CALENDAR_DIR=str(tmp_path / "cal"))
    assert refused.returncode == 2 and reason in refused.stderr, refused.stderr
    assert not (tmp_path / "cal").exists()
