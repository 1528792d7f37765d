"""Test modules that must run with no other test beside them, under pytest-xdist.

The echo canceller's room (``tests/system/barge_in``) plays an answer through a
simulated room in real time and judges what the canceller took off it: beside
another whole assistant on two cores, the sound server's loopback starved, the
canceller never converged before the user spoke, and "Stop." took 6 s of STT and
came back as "I'm sorry." (two runs in two, against one in a dozen alone).

Every worker holds a shared lock on one file while it runs a module; such a module
holds it exclusively. A second file is the turnstile: a worker waiting for the
exclusive lock holds it, so the other worker, between two modules, waits behind it
instead of taking the shared lock again and again.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from pathlib import Path
from typing import IO

ALONE = ("tests/system/barge_in/",)
WAIT = 1800.0
"""Seconds a worker waits for its turn before the run fails: a module run alone takes
minutes (the echo room about 5 on a loaded 2-core machine)."""


class Turns:
    """The lock of one test run (all its workers share the files)."""

    def __init__(self, run: str) -> None:
        base = Path(tempfile.gettempdir()) / f"da-tests-{os.getuid()}-{run}"
        self._lock: IO[str] = open(f"{base}.lock", "a")  # noqa: SIM115
        self._gate: IO[str] = open(f"{base}.gate", "a")  # noqa: SIM115
        self.held: str | None = None
        """The module whose turn this worker holds."""

    def take(self, module: str) -> None:
        if self.held == module:
            return
        self.give_back()
        kind = fcntl.LOCK_EX if module.startswith(ALONE) else fcntl.LOCK_SH
        _flock(self._gate, fcntl.LOCK_EX)
        try:
            _flock(self._lock, kind)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        self.held = module

    def give_back(self) -> None:
        if self.held is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self.held = None


def _flock(file: IO[str], kind: int) -> None:
    """``flock`` with a deadline (a blocking one would wait forever on a stuck worker)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            fcntl.flock(file, kind | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no turn to run a test within {WAIT:.0f} s") from None
            time.sleep(0.2)  # polling a lock, with a deadline
