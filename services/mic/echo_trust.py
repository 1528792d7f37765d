"""Whether the echo canceller's output can be trusted: how much of the echo it removes, and
for how long it has adapted since the delay last moved or the user talked over it."""

from __future__ import annotations

import numpy as np

from services.mic.echo_timeline import RATE

CONVERGED = RATE
"""Samples of echo the filter must have adapted on (since the delay last moved) before
its output may be trusted: before, the first second of an answer passes through almost
whole (measured: a speech onset 0.2 s into the first one)."""
REDUCTION = 10 ** (12 / 10)
"""The echo is taken as removed once the canceller takes 12 dB off it..."""
QUIET = 1e4
"""... or leaves less than this mean square (PCM16, about -50 dBFS: the room's noise)."""
SMOOTHING = 0.01
"""Per 10 ms frame: the powers compared average over about a second of echo."""


class EchoTrust:
    def __init__(self) -> None:
        self.adapted = 0
        """Samples of echo adapted on since the delay last moved."""
        self.converged = False
        self._echo_power = self._left_power = 0.0

    @property
    def reduction(self) -> float:
        """dB the canceller takes off what the mic hears while the assistant speaks (over
        about the last second: the user talking over the echo lowers it)."""
        return float(10 * np.log10(max(self._echo_power, 1.0) / max(self._left_power, 1.0)))

    def follow(self, mic: bytes, cleaned: bytes, aligned: bool) -> None:
        """Track how much of the echo the canceller removes; until it has converged, that
        decides whether its output can be trusted (after, the user's voice, talking over the
        echo, counts as what is left)."""
        for power, pcm in (("_echo_power", mic), ("_left_power", cleaned)):
            square = float(np.mean(np.frombuffer(pcm, dtype="<i2").astype(np.float32) ** 2))
            setattr(self, power, (1 - SMOOTHING) * getattr(self, power) + SMOOTHING * square)
        if self.converged:
            return
        self.adapted += len(mic) // 2
        self.converged = aligned and self.adapted >= CONVERGED and (
            self._left_power < QUIET or self._echo_power > REDUCTION * self._left_power
        )

    def distrust(self) -> None:
        """The delay moved, or the filter may have adapted to something else than the echo:
        it must converge anew, on fresh powers (powers kept from before a move held the
        reduction near 0 dB for 2 s more: trusted again 3.5 s after the move, not 1.5 s)."""
        self.adapted, self.converged = 0, False
        self._echo_power = self._left_power = 0.0
