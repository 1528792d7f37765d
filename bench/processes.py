"""What the benchmark measures of processes (memory), does to them (niceness), and waits
for (an idle machine)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TextIO


def rss_mb(pid: int) -> tuple[float, float]:
    """RSS and PSS (shared pages divided among their users) of a process and its children."""
    rss = pss = 0.0
    for proc in [pid, *_children(pid)]:
        try:
            text = Path(f"/proc/{proc}/smaps_rollup").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("Rss:"):
                rss += int(line.split()[1]) / 1024
            elif line.startswith("Pss:"):
                pss += int(line.split()[1]) / 1024
    return round(rss, 1), round(pss, 1)


def renice(pids: list[int], nice: int) -> None:
    """Set the niceness of every thread of these processes (and their children): on Linux
    it is per thread, and threads keep the value they were created with."""
    for pid in [*pids, *(c for p in pids for c in _children(p))]:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                os.setpriority(os.PRIO_PROCESS, int(task.name), nice)
            except (ProcessLookupError, PermissionError) as exc:
                raise SystemExit(f"--nice {nice}: cannot renice {pid}: {exc}") from None


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found + [g for c in found for g in _children(c)]


def busy_percent(seconds: float = 3.0) -> float:
    """How busy all CPUs were over the next ``seconds`` (from /proc/stat), in percent."""

    def sample() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields), idle

    total0, idle0 = sample()
    time.sleep(seconds)  # the measurement itself: CPU time over a wall-clock interval
    total1, idle1 = sample()
    return 100.0 * (1 - (idle1 - idle0) / max(1, total1 - total0))


def wait_idle(percent: float, longest: float, log: TextIO = sys.stderr) -> float:
    """Wait (up to ``longest`` seconds) until the CPUs are less than ``percent`` busy; returns
    the last busy figure (printed as it waits)."""
    deadline = time.monotonic() + longest
    while (busy := busy_percent()) >= percent and time.monotonic() < deadline:
        print(f"  waiting for a quieter machine: CPUs {busy:.0f} % busy", file=log, flush=True)
    return busy
