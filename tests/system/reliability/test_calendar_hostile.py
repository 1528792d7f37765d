"""Hostile .ics files for the calendar tool: bounded time and memory, the good events listed.

Each case puts one hostile file beside a good one and runs ``calendar.py`` as
the tool runs it (a process with the tool's arguments); the run must end well
inside the tool's 10 s timeout, stay small, list the good event and name the
file or event it skipped. Then all of them together.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT

TOOL = ROOT / "examples" / "tools" / "calendar.py"
GOOD = "UID:good\r\nDTSTART:20300105T093000\r\nSUMMARY:Dentist\r\n"
MOST_SECONDS = 8.0
"""Below the tool's 10 s timeout: the user gets the good events, not a timeout."""
MOST_MEMORY_MB = 150


def calendar(*events: str, wrap: bool = True) -> str:
    body = "".join(f"BEGIN:VEVENT\r\n{e}END:VEVENT\r\n" for e in events)
    return f"BEGIN:VCALENDAR\r\n{body}END:VCALENDAR\r\n" if wrap else body


def rule(uid: str, start: str, rrule: str) -> str:
    return f"UID:{uid}\r\nDTSTART:{start}\r\nRRULE:{rrule}\r\nSUMMARY:{uid}\r\n"


HOSTILE = {
    "endless-rule": calendar(rule("endless", "20200101T000000", "FREQ=SECONDLY")),
    "rule-no-date-fits": calendar(
        rule("never", "20200101T000000", "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30")
    ),
    "count-a-billion": calendar(
        rule("billion", "19700101T000000", "FREQ=SECONDLY;COUNT=1000000000")
    ),
    "interval-zero": calendar(rule("zero", "20200101T000000", "FREQ=DAILY;INTERVAL=0")),
    "every-second-of-the-days-asked": calendar(
        rule("flood", "20300101T000000", "FREQ=SECONDLY;UNTIL=20300102T000000")
    ),
    "broken-folding": "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:fold\r\nDTSTART:2030\r\n"
    "\r\n 0101T000000\rSUMMARY:x\r\n" + " \r\n" * 50_000 + "\tEND:VEVENT\r\n",
    "invalid-dates": calendar(
        "UID:m13\r\nDTSTART:20301301T000000\r\nSUMMARY:x\r\n",
        "UID:feb30\r\nDTSTART;VALUE=DATE:20300230\r\nSUMMARY:x\r\n",
        "UID:year0\r\nDTSTART:00000101T000000Z\r\nSUMMARY:x\r\n",
        "UID:tz\r\nDTSTART;TZID=Nowhere/Land:20300101T250000\r\nSUMMARY:x\r\n",
        "UID:dur\r\nDTSTART:20300101T000000\r\nDURATION:P99999999999999W\r\nSUMMARY:x\r\n",
        "UID:until\r\nDTSTART:20300101T000000Z\r\nRRULE:FREQ=DAILY;UNTIL=99999999\r\nSUMMARY:x\r\n",
    ),
    "thousand-level-nesting": calendar(
        "UID:deep\r\nDTSTART:20300101T000000\r\n" + "BEGIN:X\r\n" * 1000 + "END:X\r\n" * 1000
    ),
    "never-closed-nesting": "BEGIN:VCALENDAR\r\n" + "BEGIN:VEVENT\r\n" * 5000,
    "a-million-rdates": calendar(
        "UID:rdates\r\nDTSTART:20300101T000000\r\nRDATE:"
        + ",".join(["20300101T000000"] * 200_000)
        + "\r\n"
    ),
    "huge-file": calendar("UID:huge\r\nDTSTART:20300101T000000\r\nSUMMARY:" + "x" * 5_000_000),
    "binary-garbage": (os.urandom(200_000)).decode("latin-1"),
    "twelve-rules-no-date-fits": calendar(
        *(
            rule(f"never{n}", "20200101T000000", "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30")
            for n in range(12)
        )
    ),
}


MEASURE = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], timeout=30).returncode
print(f"peak_kb={resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr)
sys.exit(code)
"""
"""Runs the tool as its only child, then prints that child's peak memory."""


def run_calendar(folder: Path) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The tool's run, its wall time and its peak memory in MiB."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, str(TOOL), "2030-01-01", "10"],
        env=dict(os.environ, CALENDAR_DIR=str(folder), TZ="UTC"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    seconds = time.monotonic() - started
    lines = done.stderr.splitlines()
    peak = int(lines[-1].removeprefix("peak_kb=")) / 1024
    done.stderr = "\n".join(lines[:-1])
    return done, seconds, peak


READABLE = {"thousand-level-nesting"}
"""Nested components are skipped inside an event: the event itself is fine."""
EXPANDED_IF_FAST = {"a-million-rdates": "2030-01-01 00:00 (no title)"}
"""Files a fast machine expands inside the tool's time for one event, a slower one skips with
a note: both are right, as long as the run stays in its time and memory. (The million dates are
all one moment: expanded, the event is listed once.)"""


@pytest.mark.parametrize("name", HOSTILE)
def test_each_hostile_file_is_skipped_in_bounded_time_and_memory(tmp_path: Path, name: str) -> None:
    content = HOSTILE[name]
    (tmp_path / "0-good.ics").write_text(calendar(GOOD), encoding="utf-8")
    (tmp_path / "hostile.ics").write_text(content, encoding="utf-8", errors="surrogateescape")
    done, seconds, peak = run_calendar(tmp_path)
    assert done.returncode == 0, done.stderr
    assert seconds < MOST_SECONDS
    assert peak < MOST_MEMORY_MB
    assert "2030-01-05 09:30 Dentist" in done.stdout.splitlines()
    assert len(done.stdout.splitlines()) <= 60  # never a flood of lines for the model
    if name in EXPANDED_IF_FAST and "calendar: " not in done.stderr:
        assert done.stdout.splitlines().count(EXPANDED_IF_FAST[name]) == 1
        return
    assert ("calendar: " in done.stderr) != (name in READABLE)  # what was skipped, and why


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_file_that_is_not_regular_is_skipped_unread(tmp_path: Path, target: str) -> None:
    # /dev/zero has a size of 0, so a size check let it through to an endless read; a FIFO
    # without a writer blocks whoever opens it for reading
    (tmp_path / "0-good.ics").write_text(calendar(GOOD), encoding="utf-8")
    if target == "fifo":
        os.mkfifo(tmp_path / "special.ics")
    else:
        (tmp_path / "special.ics").symlink_to(target)
    done, seconds, peak = run_calendar(tmp_path)
    assert done.returncode == 0, done.stderr
    assert seconds < MOST_SECONDS and peak < MOST_MEMORY_MB
    assert done.stdout.splitlines() == ["2030-01-05 09:30 Dentist"]
    assert f"calendar: skipped {tmp_path / 'special.ics'}: not a regular file" in done.stderr


def test_all_of_them_together_end_in_bounded_time(tmp_path: Path) -> None:
    (tmp_path / "0-good.ics").write_text(calendar(GOOD), encoding="utf-8")
    for name, content in HOSTILE.items():
        (tmp_path / f"{name}.ics").write_text(content, encoding="utf-8", errors="surrogateescape")
    done, seconds, peak = run_calendar(tmp_path)
    assert done.returncode == 0, done.stderr
    assert seconds < MOST_SECONDS and peak < MOST_MEMORY_MB
    assert "2030-01-05 09:30 Dentist" in done.stdout.splitlines()
