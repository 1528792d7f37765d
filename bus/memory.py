"""The broker's memory guard: its resident size, read a few times a second, against a budget."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

PERIOD = 0.1
"""Seconds between readings (each costs microseconds): a flood of 1 GB/s grows the broker by
100 MB in between."""


def resident_bytes() -> int:
    """This process's resident size (the second field of /proc/self/statm, in pages)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def release_freed_memory() -> None:
    """Hand freed heap pages back to the system: glibc keeps them, and the resident size
    would stay over the budget after the queues it held were freed."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    libc = ctypes.CDLL(name)
    if hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


class MemoryGuard:
    """Calls ``over(resident, budget)`` when the resident size passes ``budget`` bytes."""

    def __init__(self, budget: int, over: Callable[[int, int], None]) -> None:
        self.budget = budget
        self._over = over
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="memory-guard", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2 * PERIOD + 1)

    def _watch(self) -> None:
        while not self._stop.wait(PERIOD):
            resident = resident_bytes()
            if resident > self.budget:
                self._over(resident, self.budget)
                # The proxy drops and frees in its own thread: give it the time to.
                self._stop.wait(1.0)
