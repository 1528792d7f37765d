#!/usr/bin/env python3
"""Add an event to a vdir calendar folder: ``add_event.py TITLE START [MINUTES] [CALENDAR]``.

TITLE is what the event is called; START the local date and time it starts, ISO
(``2026-12-08T13:00`` or ``2026-12-08 13:00``; a date alone is an all-day event);
MINUTES how long it lasts (empty: 60); CALENDAR the subfolder of ``$CALENDAR_DIR``
(default ``~/.local/share/calendars``) to write into (empty: ``personal``). Writes one
RFC 5545 file, ``<uid>.ics``, as vdirsyncer would, so ``calendar.py`` lists it and a
sync takes it to the server. Prints what was added, or a reason on stderr (exit 2).
The standard library only: it runs with whatever python3 PATH finds first.
"""

import os
import re
import sys
import tempfile
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

MAX_TITLE = 200
CALENDAR_NAME = re.compile(r"^[\w][\w .-]{0,63}$")


def escape(text):
    """A TEXT value (RFC 5545 3.3.11): backslash, semicolon, comma and newlines escaped."""
    text = text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return re.sub(r"\r\n|\r|\n", "\\\\n", text)


def fold(line):
    """A content line folded at 75 octets (RFC 5545 3.1), never inside a UTF-8 character."""
    out, current = [], b""
    for char in line:
        encoded = char.encode("utf-8")
        if len(current) + len(encoded) > (75 if not out else 74):
            out.append(current)
            current = b""
        current += encoded
    out.append(current)
    return b"\r\n ".join(out).decode("utf-8")


def parse_start(text):
    text = text.strip().replace(" ", "T", 1)
    try:
        if "T" not in text:
            return date.fromisoformat(text)
        return datetime.fromisoformat(text).replace(second=0, microsecond=0, tzinfo=None)
    except ValueError:
        raise ValueError(f"start {text!r} is not an ISO date or date and time") from None


def event_lines(title, start, minutes, uid, stamp):
    if isinstance(start, datetime):
        end = start + timedelta(minutes=minutes)
        when = [f"DTSTART:{start:%Y%m%dT%H%M%S}", f"DTEND:{end:%Y%m%dT%H%M%S}"]
    else:
        end = start + timedelta(days=1)
        when = [f"DTSTART;VALUE=DATE:{start:%Y%m%d}", f"DTEND;VALUE=DATE:{end:%Y%m%d}"]
    return [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//desktop-assistant//add_event//EN",
        "BEGIN:VEVENT", f"UID:{uid}", f"DTSTAMP:{stamp:%Y%m%dT%H%M%SZ}", *when,
        f"SUMMARY:{escape(title)}", "END:VEVENT", "END:VCALENDAR",
    ]


def add(folder, title, start, minutes):
    uid = f"{uuid.uuid4()}@desktop-assistant"
    lines = event_lines(title, start, minutes, uid, datetime.now(timezone.utc))  # noqa: UP017 (3.10's python3 too)
    data = "".join(fold(line) + "\r\n" for line in lines).encode("utf-8")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".add_event-", suffix=".tmp", dir=folder)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    target = folder / (uid.split("@")[0] + ".ics")
    os.replace(tmp, target)  # a reader sees the whole file or none
    return target


def main(argv):
    if len(argv) < 2:
        print("usage: add_event.py TITLE START [MINUTES] [CALENDAR]", file=sys.stderr)
        return 2
    title = " ".join(argv[0].split())
    minutes_text = (argv[2] if len(argv) > 2 else "").strip() or "60"
    calendar = (argv[3] if len(argv) > 3 else "").strip() or "personal"
    try:
        if not title or len(title) > MAX_TITLE:
            raise ValueError(f"the title must have 1 to {MAX_TITLE} characters")
        start = parse_start(argv[1])
        if not minutes_text.isdigit() or not 1 <= int(minutes_text) <= 24 * 60:
            raise ValueError(f"minutes {minutes_text!r} is not a whole number from 1 to 1440")
        if not CALENDAR_NAME.match(calendar) or calendar.startswith("."):
            raise ValueError(f"calendar {calendar!r} is not a plain folder name")
    except ValueError as exc:
        print(f"add_event: {exc}", file=sys.stderr)
        return 2
    root = Path(os.environ.get("CALENDAR_DIR") or Path.home() / ".local/share/calendars")
    try:
        add(root / calendar, title, start, int(minutes_text))
    except OSError as exc:
        print(f"add_event: cannot write to {root / calendar}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    when = f"{start:%Y-%m-%d %H:%M}" if isinstance(start, datetime) else f"{start} all day"
    length = f" ({minutes_text} min)" if isinstance(start, datetime) else ""
    print(f"added to {calendar}: {when} {title}{length}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
