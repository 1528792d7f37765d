"""Build vdir calendar folders (as vdirsyncer writes them) for the calendar tool's tests."""

from __future__ import annotations

from pathlib import Path

CRLF = "\r\n"

ROME_VTIMEZONE = CRLF.join(
    [
        "BEGIN:VTIMEZONE",
        "TZID:Europe/Rome",
        "BEGIN:DAYLIGHT",
        "TZOFFSETFROM:+0100",
        "TZOFFSETTO:+0200",
        "TZNAME:CEST",
        "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
        "END:DAYLIGHT",
        "BEGIN:STANDARD",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100",
        "TZNAME:CET",
        "DTSTART:19701025T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
        "END:STANDARD",
        "END:VTIMEZONE",
    ]
)
"""A VTIMEZONE with RRULE lines of its own, which an event reader must not take for events."""


def event(uid: str, summary: str, *lines: str) -> str:
    """One VEVENT; ``lines`` are its other content lines (``DTSTART;TZID=...:...``)."""
    body = [f"UID:{uid}", f"SUMMARY:{summary}", "DTSTAMP:20260101T000000Z", *lines]
    return CRLF.join(["BEGIN:VEVENT", *body, "END:VEVENT"])


def fold(text: str, width: int = 75, continuation: str = " ") -> str:
    """Fold every content line longer than ``width`` characters (RFC 5545 3.1)."""
    out = []
    for line in text.split(CRLF):
        parts = [line[:width]]
        rest = line[width:]
        while rest:
            parts.append(continuation + rest[: width - 1])
            rest = rest[width - 1 :]
        out.append(CRLF.join(parts))
    return CRLF.join(out)


def calendar(*components: str) -> str:
    """A VCALENDAR holding ``components`` (events first, then time zones, as vdirsyncer does)."""
    head = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//desktop-assistant tests//EN"]
    return CRLF.join([*head, *components, "END:VCALENDAR"]) + CRLF


class Vdir:
    """A vdir: one folder per calendar under ``root``, one ``.ics`` file per item."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def add(self, collection: str, name: str, text: str) -> Path:
        """Write ``text`` (a whole .ics file) as ``root/collection/name.ics``."""
        folder = self.root / collection
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.ics"
        path.write_bytes(text.encode("utf-8"))
        return path

    def add_events(self, collection: str, name: str, *components: str) -> Path:
        return self.add(collection, name, calendar(*components))
