#!/usr/bin/env python3
"""List the events of a vdir calendar folder: ``calendar.py [START] [DAYS]``.

START is an ISO date (empty: today), DAYS a count (empty: 1). Prints one line
per event that overlaps those days, sorted: ``YYYY-MM-DD HH:MM summary`` or
``YYYY-MM-DD all day summary``, in local time; ``no events`` when there are
none. The folder is ``$CALENDAR_DIR`` (default ``~/.local/share/calendars``),
every ``*.ics`` below it. Files or events that cannot be read, or that take
too long to expand (an endless rule), are reported on stderr and skipped.
``calendar.py --test`` checks itself on a generated vdir.
"""

import os
import sys

# This file is named calendar.py and Python puts its folder first on sys.path,
# so the standard library's `calendar` (which dateutil imports) would be this
# script. Drop that entry before importing anything that needs `calendar`.
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _HERE]

import contextlib  # noqa: E402  (after the sys.path fix above)
import re  # noqa: E402
import signal  # noqa: E402
import stat  # noqa: E402
import tempfile  # noqa: E402
import time as clock  # noqa: E402
from datetime import date, datetime, time, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

from dateutil import tz  # noqa: E402
from dateutil.rrule import rruleset, rrulestr  # noqa: E402

MAX_DAYS = 366
MAX_OCCURRENCES = 200_000
"""Occurrences walked per event before giving up (a SECONDLY rule from 1970...)."""
MAX_SHOWN = 50
"""Occurrences of one event listed (a rule every minute would flood the answer)."""
MAX_FILE_BYTES = 4 * 1024 * 1024
EVENT_SECONDS = 1.0
"""Time one event may take to expand: dateutil can search forever for a rule no date fits."""
TOTAL_SECONDS = 6.0
"""Time for the whole listing (the tool's own timeout is 10 s): later events and files are
skipped. Each event's budget ends at this deadline too, so that many slow rules in one file
cannot add up past it."""


@contextlib.contextmanager
def budget(seconds):
    """Raise TimeoutError inside the block after ``seconds`` (pure Python stops there)."""

    def expired(signum, frame):
        raise TimeoutError(f"took more than {seconds:g} s to expand")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

PARAM = r';[A-Za-z0-9-]+=(?:"[^"]*"|[^";:])*'
LINE = re.compile(rf"^([A-Za-z0-9_-]+)((?:{PARAM})*):(.*)$")
PARAMS = re.compile(r';([A-Za-z0-9-]+)=((?:"[^"]*"|[^";:])*)')
DURATION = re.compile(
    r"^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$", re.IGNORECASE
)
UNTIL = re.compile(r"UNTIL=(\d{8})(T\d{6})?(Z?)", re.IGNORECASE)


def warn(message):
    print(f"calendar: {message}", file=sys.stderr)


def vevents(text):
    """The VEVENT blocks of an iCalendar text, each {NAME: [(params, value)]}.

    Continuation lines (a line break followed by a space or a tab) are unfolded;
    VTIMEZONE blocks and components nested in an event (VALARM) are skipped.
    """
    lines = re.split(r"\r?\n", re.sub(r"\r?\n[ \t]", "", text.lstrip("\ufeff")))
    events, stack, current = [], [], None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        match = LINE.match(line)
        if match is None:
            raise ValueError(f"line {number} is not a content line: {line[:60]!r}")
        name, raw_params, value = match[1].upper(), match[2], match[3]
        if name == "BEGIN":
            stack.append(value.strip().upper())
            if stack[-1] == "VEVENT":
                current = {}
        elif name == "END":
            if not stack or stack[-1] != value.strip().upper():
                raise ValueError(f"line {number}: END:{value} does not close {stack[-1:]}")
            if stack.pop() == "VEVENT":
                events.append(current)
                current = None
        elif stack and stack[-1] == "VEVENT":
            params = {k.upper(): v.strip('"') for k, v in PARAMS.findall(raw_params)}
            current.setdefault(name, []).append((params, value))
    if stack:
        raise ValueError(f"{stack[-1]} is never closed")
    return events


def moment(params, value):
    """A DATE (naive midnight, all day), UTC, TZID or floating (naive) DATE-TIME."""
    value = value.strip()
    if params.get("VALUE", "").upper() == "DATE" or re.fullmatch(r"\d{8}", value):
        return datetime.strptime(value[:8], "%Y%m%d"), True
    match = re.fullmatch(r"(\d{8}T\d{6})(Z?)", value, re.IGNORECASE)
    if match is None:
        raise ValueError(f"{value!r} is not a date or date-time")
    when = datetime.strptime(match[1].upper(), "%Y%m%dT%H%M%S")
    if match[2]:
        return when.replace(tzinfo=tz.UTC), False
    if "TZID" in params:
        zone = tz.gettz(params["TZID"].lstrip("/"))
        if zone is None:
            warn(f"unknown TZID {params['TZID']!r}, read as local time")
            return when, False
        return when.replace(tzinfo=zone), False
    return when, False


def moments(entries):
    """Every value of EXDATE/RDATE lines (comma-separated lists)."""
    return [moment(params, part)[0] for params, value in entries for part in value.split(",")]


def like(value, start):
    """``value`` made comparable with ``start``: same kind (aware or naive, date or time)."""
    if start.tzinfo is not None and value.tzinfo is None:
        return value.replace(tzinfo=start.tzinfo)
    if start.tzinfo is None and value.tzinfo is not None:
        return value.astimezone().replace(tzinfo=None)  # floating: local time
    return value


def duration_of(props, start, all_day):
    if "DTEND" in props:
        end, _ = moment(*props["DTEND"][0])
        if all_day:
            return timedelta(days=max((end.date() - start.date()).days, 1))
        return max(local(end) - local(start), timedelta(0))
    if "DURATION" in props:
        match = DURATION.match(props["DURATION"][0][1].strip())
        if match is None:
            raise ValueError(f"bad DURATION {props['DURATION'][0][1]!r}")
        weeks, days, hours, minutes, seconds = (int(n or 0) for n in match.groups()[1:])
        span = timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes, seconds=seconds)
        return -span if match[1] == "-" else span
    return timedelta(days=1) if all_day else timedelta(0)


def local(when):
    """Aware local time (a naive value is floating: already local)."""
    return when.astimezone()


def fixed_until(rule, start):
    """RFC 5545 wants UNTIL in UTC exactly when DTSTART has a zone; mend the common slips."""
    match = UNTIL.search(rule)
    if match is None or (start.tzinfo is not None) == bool(match[3]):
        return rule
    until = datetime.strptime(match[1] + (match[2] or "T235959").upper(), "%Y%m%dT%H%M%S")
    if start.tzinfo is not None:
        text = until.replace(tzinfo=start.tzinfo).astimezone(tz.UTC).strftime("%Y%m%dT%H%M%SZ")
    else:
        text = until.replace(tzinfo=tz.UTC).astimezone().strftime("%Y%m%dT%H%M%S")
    return rule[: match.start()] + "UNTIL=" + text + rule[match.end() :]


def text_value(value):
    value = re.sub(r"\\([\\;,nN])", lambda m: " " if m[1] in "nN" else m[1], value)
    return " ".join(value.split()) or "(no title)"


def occurrences(props, start, replaced, lo, hi):
    """Starts of the event's occurrences in [lo, hi) (of start's kind), dateutil recurrence."""
    rules = [fixed_until(value, start) for _, value in props.get("RRULE", [])]
    if any(re.search(r"INTERVAL=0*(;|$)", rule, re.IGNORECASE) for rule in rules):
        raise ValueError("RRULE INTERVAL must be at least 1")
    rset = rrulestr("\n".join(rules), dtstart=start, forceset=True) if rules else rruleset()
    rset.rdate(start)  # RFC 5545: DTSTART is always the first occurrence
    for extra in moments(props.get("RDATE", [])):
        rset.rdate(like(extra, start))
    for gone in moments(props.get("EXDATE", [])) + replaced:
        rset.exdate(like(gone, start))
    for count, when in enumerate(rset):
        if when >= hi:
            return
        if count > MAX_OCCURRENCES:
            raise ValueError(f"more than {MAX_OCCURRENCES} occurrences before the days asked")
        if when >= lo:
            yield when


def listing(folder, first, days):
    """Sorted (day, all_day, time, summary) of every event overlapping the days."""
    rows = []
    deadline = clock.monotonic() + TOTAL_SECONDS
    for path in sorted(folder.rglob("*.ics")):
        if clock.monotonic() > deadline:
            warn(f"stopped after {TOTAL_SECONDS:g} s: {path} and the files after it not read")
            break
        try:
            with budget(time_left(deadline)):
                events = vevents(read_bounded(path).decode("utf-8", errors="replace"))
        except (OSError, ValueError) as exc:  # TimeoutError is an OSError
            warn(f"skipped {path}: {exc}")
            continue
        rows += file_rows(path, events, first, days, deadline)
    return sorted(rows)


def time_left(deadline):
    """One event's (or file's) budget: EVENT_SECONDS, or less when the deadline is nearer."""
    return max(min(EVENT_SECONDS, deadline - clock.monotonic()), 0.001)


def read_bounded(path):
    """A regular file's bytes, at most MAX_FILE_BYTES: a FIFO would block, and a link to
    /dev/zero has a size of 0 and no end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
    return data


def file_rows(path, events, first, days, deadline):
    overrides = {}  # UID -> RECURRENCE-IDs whose occurrence an override replaces
    usable = []
    for props in events:
        uid = props.get("UID", [({}, "")])[0][1]
        if "RECURRENCE-ID" in props:
            try:
                replaced = moment(*props["RECURRENCE-ID"][0])[0]
            except ValueError as exc:  # this invite alone is unusable, not the whole listing
                warn(f"skipped event {uid or '(no UID)'} in {path}: RECURRENCE-ID: {exc}")
                continue
            overrides.setdefault(uid, []).append(replaced)
        usable.append((uid, props))
    rows = []
    for number, (uid, props) in enumerate(usable):
        if clock.monotonic() > deadline:
            left = len(usable) - number
            warn(f"stopped after {TOTAL_SECONDS:g} s: {left} events of {path} not read")
            break
        try:
            with budget(time_left(deadline)):
                rows += event_rows(props, overrides.get(uid, []), first, days)
        except (ValueError, OverflowError, KeyError, TimeoutError) as exc:
            warn(f"skipped event {uid or '(no UID)'} in {path}: {exc}")
    return rows


def event_rows(props, replaced, first, days):
    if "DTSTART" not in props:
        raise ValueError("no DTSTART")
    if props.get("STATUS", [({}, "")])[0][1].strip().upper() == "CANCELLED":
        return []
    start, all_day = moment(*props["DTSTART"][0])
    span = duration_of(props, start, all_day)
    summary = text_value(props.get("SUMMARY", [({}, "")])[0][1])
    if "RECURRENCE-ID" in props:  # an override is a single event of its own
        props, replaced = {}, []
    lo_day = datetime.combine(first, time())
    hi_day = lo_day + timedelta(days=days)
    lo, hi = (local(lo_day), local(hi_day)) if start.tzinfo is not None else (lo_day, hi_day)
    rows = []
    for when in occurrences(props, start, replaced, lo - span - timedelta(days=1), hi):
        if len(rows) == MAX_SHOWN:
            warn(f"{summary}: only the first {MAX_SHOWN} occurrences are listed")
            break
        if all_day:
            if when < hi_day and when + span > lo_day:
                rows.append((when.date(), 0, "", summary))
            continue
        begin, end = local(when), local(when + span)
        if begin < local(hi_day) and (end > local(lo_day) or begin == end >= local(lo_day)):
            shown = begin.replace(tzinfo=None)
            rows.append((shown.date(), 1, shown.strftime("%H:%M"), summary))
    return rows


def render(rows):
    if not rows:
        return "no events"
    return "\n".join(f"{day} {clock or 'all day'} {summary}" for day, _, clock, summary in rows)


def parse_start(text):
    text = text.strip().lower()
    if text in ("", "today"):
        return date.today()
    if text == "tomorrow":
        return date.today() + timedelta(days=1)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise SystemExit(
            f"calendar: start must be an ISO date like 2026-10-01, not {text!r}"
        ) from None


def parse_days(text):
    text = text.strip() or "1"
    if not text.isdigit() or not 1 <= int(text) <= MAX_DAYS:
        limit = f"from 1 to {MAX_DAYS}"
        raise SystemExit(f"calendar: days must be a whole number {limit}, not {text!r}")
    return int(text)


def main(argv):
    if argv[1:] == ["--test"]:  # alone: as a tool it always gets two arguments
        return self_test()
    first = parse_start(argv[1] if len(argv) > 1 else "")
    days = parse_days(argv[2] if len(argv) > 2 else "")
    folder = Path(os.environ.get("CALENDAR_DIR") or Path.home() / ".local/share/calendars")
    if not folder.is_dir():
        print(f"calendar: no calendar folder at {folder} (set CALENDAR_DIR)", file=sys.stderr)
        return 1
    print(render(listing(folder, first, days)))
    return 0


TEST_EVENTS = {
    "dentist.ics": "UID:one\r\nDTSTART:20300105T093000\r\nDTEND:20300105T103000\r\n"
    "SUMMARY:Dentist\r\n",
    "birthday.ics": "UID:yearly\r\nDTSTART;VALUE=DATE:20200312\r\nRRULE:FREQ=YEARLY\r\n"
    "SUMMARY:Anna's\r\n  birthday\r\n",
    "choir.ics": "UID:weekly\r\nDTSTART:20300101T180000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\n"
    "EXDATE:20300108T180000\r\nSUMMARY:Choir\r\n",
}
TEST_EXPECTED = {
    (date(2030, 1, 1), 31): "2030-01-01 18:00 Choir\n2030-01-05 09:30 Dentist\n"
    "2030-01-15 18:00 Choir\n2030-01-22 18:00 Choir",
    (date(2030, 3, 12), 1): "2030-03-12 all day Anna's birthday",
    (date(2030, 3, 13), 300): "no events",
}


def self_test():
    """A one-off, a yearly and an EXDATE'd event in a generated vdir."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "personal"
        folder.mkdir()
        for name, body in TEST_EVENTS.items():
            text = f"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n{body}END:VEVENT\r\nEND:VCALENDAR\r\n"
            (folder / name).write_text(text, encoding="utf-8")
        failures = [
            f"{first} +{days}: expected {want!r}, got {got!r}"
            for (first, days), want in TEST_EXPECTED.items()
            if (got := render(listing(Path(tmp), first, days))) != want
        ]
    for failure in failures:
        print(f"calendar.py --test: FAIL {failure}")
    print("calendar.py --test: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
