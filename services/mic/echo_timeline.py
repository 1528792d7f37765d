"""The echo canceller's timeline: the played audio kept by sample index, and each stream's
count of samples against the times its blocks report.

Every index is epoch seconds x ``RATE``; the mic's frame at index i is cancelled
against the reference at i - delay.
"""

from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)

RATE = 16000
KEEP = 8 * RATE
"""Samples of reference kept."""
REANCHOR = RATE // 20
"""Samples (50 ms) a block's reported time may be off before it is believed."""
LOST = RATE
"""Samples of blocks all reported late after which the lateness is taken as audio lost."""
LOUD = 1e4
"""Mean square (PCM16) of reference above which the assistant counts as speaking."""


class Reference:
    """The played audio on one timeline of sample indices (epoch seconds x RATE)."""

    def __init__(self) -> None:
        self.samples = np.zeros(KEEP, dtype=np.float32)
        self.end = 0
        """Index just past the newest sample held (``samples[-1]`` is ``end - 1``)."""

    def add(self, pcm: bytes, start: float) -> None:
        data = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
        first = round(start * RATE)
        if first + len(data) > self.end:
            shift = min(KEEP, first + len(data) - self.end)
            self.samples = np.roll(self.samples, -shift)
            self.samples[-shift:] = 0
            self.end = first + len(data) if shift < KEEP else first + len(data)
        at = KEEP - (self.end - first)
        lo = max(at, 0)
        if lo < KEEP:
            self.samples[lo : at + len(data)] = data[lo - at :][: KEEP - lo]

    def take(self, first: int, count: int) -> np.ndarray:
        """``count`` samples from index ``first``: zeros where nothing was played."""
        out = np.zeros(count, dtype=np.float32)
        at = KEEP - (self.end - first)
        lo, hi = max(at, 0), min(at + count, KEEP)
        if lo < hi:
            out[lo - at : hi - at] = self.samples[lo:hi]
        return out


class SampleClock:
    """The sample index just past a stream's latest block. Consecutive blocks are consecutive
    samples; a block's reported time is when its callback ran, which is late whenever the
    machine is busy (by up to 80 ms on a loaded 2-core machine, then on time again with the
    next block), and never early. So a time far earlier than the count is taken at once (the
    count started from a late block), a later one only once every block for ``LOST``
    samples has been that late (audio was lost), and any time of a reopened stream."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.end: int | None = None
        self.moves = 0
        """Times the count was set again from a reported time (after the first)."""
        self.corrected = 0
        """Samples the latest move took off a count that had started from a late block
        (every index so far was late by that much; 0 for the other moves)."""
        self._late = 0
        """Samples of blocks in a row reported later than ``REANCHOR`` after the count..."""
        self._least = 0
        """... and the least they were late by."""

    def advance(self, samples: int, reported_end: float, fresh: bool = False) -> int:
        reported = round(reported_end * RATE)
        self.corrected = 0
        if self.end is None or fresh:
            self.moves += self.end is not None
            self.end, self._late = reported, 0
            return self.end
        expected = self.end + samples
        off = reported - expected
        if off < REANCHOR:
            self._late = 0
            if off <= -REANCHOR:
                self.end, self.corrected = expected + self._move(off, "counted late"), -off
            else:
                self.end = expected
            return self.end
        self._least = off if not self._late else min(self._least, off)
        self._late += samples
        self.end = expected
        if self._late >= LOST:
            self.end, self._late = expected + self._move(self._least, "audio was lost"), 0
        return self.end

    def _move(self, by: int, why: str) -> int:
        log.info("%s: %s: its time moves %+.0f ms", self.name, why, 1000 * by / RATE)
        self.moves += 1
        return by
