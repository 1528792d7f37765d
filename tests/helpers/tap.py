"""``python -m bus.tap`` as a child process whose lines a test waits for and keeps."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.helpers.processes import ROOT, python_env


class TapProcess:
    """The tap on the bus of config folder ``folder``; ``args`` as on its command line."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bus.tap", "--config", str(folder), *args],
            cwd=ROOT, env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.seen: list[str] = []
        """Every line printed so far (also those :meth:`wait` went past)."""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.seen.append(line)
            self.lines.put(line)

    def wait(self, words: str, timeout: float = 20.0) -> float:
        """When the next line with ``words`` came (monotonic time)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if words in line:
                return time.monotonic()
        raise AssertionError(f"the tap printed no line with {words!r} within {timeout:g} s")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


def poll(check: Callable[[], bool], timeout: float = 20.0) -> float:
    """When ``check`` first held (monotonic time), polling every 20 ms."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        time.sleep(0.02)
    return time.monotonic()
