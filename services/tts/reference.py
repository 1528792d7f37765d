"""The echo canceller's reference: what the sound card was given, with the time it plays.

The audio thread hands each buffer it filled, with the device's time for its
first sample, to the bus loop (:meth:`Reference.add`); there it is resampled
to the mic's 16 kHz and sent as ``tts.played`` in frames of about 40 ms
(32 kB/s while speaking, nothing while silent).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bus.messages import Played

RATE = 16000
FRAME = 0.04
"""Seconds per ``tts.played``: small enough that the mic has it well before the echo
(the output buffer alone is 0.1 s), large enough to keep the bus quiet."""
REANCHOR = 0.05
"""The stream's samples are consecutive, so a buffer's time is the previous one's end;
the device's reported time (which jitters by some 10 ms from call to call) is taken again
only when it is this far off: an underrun, or a reopened stream."""


class Reference:
    def __init__(self, rate: int, send: Callable[[Played], None]) -> None:
        self.rate = rate
        self.send = send
        self._pending: list[np.ndarray] = []
        self._start = 0.0
        self._end = 0.0

    def add(self, pcm: bytes, start: float) -> None:
        """A buffer the device plays from ``start`` (epoch seconds), at the output's rate."""
        samples = np.frombuffer(pcm, dtype="<i2")
        if abs(start - self._end) < REANCHOR:
            start = self._end
        elif self._pending:
            self.flush()
        if not self._pending:
            self._start = start
        self._pending.append(samples)
        self._end = start + len(samples) / self.rate
        if self._end - self._start >= FRAME:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        samples = np.concatenate(self._pending)
        self._pending = []
        if not samples.any():
            return  # silence: the mic takes a missing frame as nothing played
        self.send(Played(pcm=to_16k(samples, self.rate), start=self._start))


def to_16k(samples: np.ndarray, rate: int) -> bytes:
    """Linear resampling: the canceller's adaptive filter absorbs its small colouring."""
    if rate == RATE:
        return samples.astype("<i2").tobytes()
    count = int(len(samples) * RATE / rate)
    positions = np.arange(count) * (rate / RATE)
    resampled = np.interp(positions, np.arange(len(samples)), samples.astype(np.float32))
    return resampled.astype("<i2").tobytes()
