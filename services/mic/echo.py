"""Echo cancellation: the assistant's own voice taken out of what the mic hears.

The speaker sends what it played (``tts.played``: 16 kHz PCM with the time
each frame reaches the sound card); the mic keeps the last seconds of it and,
for every frame it captured at time t, hands speexdsp the reference played at
t - delay. The delay (the air, the two devices' buffers, the errors in their
reported latencies) is estimated by cross-correlating the mic with the
reference while the assistant speaks; the adaptive filter covers what is left
(``TAIL``) and the room's reverberation.
"""

from __future__ import annotations

import logging

import numpy as np

from services.mic.speex import SpeexCanceller

log = logging.getLogger(__name__)

RATE = 16000
FRAME = 160
"""Samples per canceller frame (10 ms)."""
TAIL = 2048
"""Samples of echo path the adaptive filter models (128 ms): reverberation and the
delay estimate's error."""
KEEP = 4 * RATE
"""Samples of reference kept."""
LAGS = (-0.1, 0.4)
"""Seconds of delay searched: the reported latencies may be off either way."""
MARGIN = 0.02
"""Seconds the reference is taken earlier than the estimated delay, so the filter
sees the start of the echo path."""
ESTIMATE_EVERY = RATE // 2
WINDOW = 2 * RATE
"""Samples of mic and reference correlated per estimate."""
CLEAR_PEAK = 6.0
"""A peak is a delay only this many times above the correlation's RMS."""
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


class EchoCanceller:
    def __init__(self, delay: float = 0.05) -> None:
        self.speex = SpeexCanceller(FRAME, TAIL, RATE)
        self.reference = Reference()
        self.delay = round(delay * RATE)
        """Samples from the reference's time to its echo in the mic (estimated)."""
        self._pending = bytearray()
        self._pending_end = 0
        self._heard = np.zeros(WINDOW, dtype=np.float32)
        self._heard_end = 0
        self._since_estimate = 0
        self.estimates = 0
        self.adapted = 0
        """Samples of echo adapted on since the delay last moved."""
        self._echo_power = self._left_power = 0.0
        """Delay estimates made (``doctor`` and the tests read it)."""

    @property
    def converged(self) -> bool:
        """Whether what the canceller lets through can be taken for the room, not the echo."""
        if self.adapted < CONVERGED:
            return False
        return self._left_power < QUIET or self._echo_power > REDUCTION * self._left_power

    def played(self, pcm: bytes, start: float) -> None:
        self.reference.add(pcm, start)

    def clean(self, pcm: bytes, end: float) -> tuple[bytes, float]:
        """The mic's audio captured until ``end`` (epoch seconds) without the echo: the whole
        frames of it (a rest waits for the next call) and the time just after them."""
        self._pending += pcm
        self._pending_end = round(end * RATE)
        whole = len(self._pending) // (2 * FRAME) * FRAME
        first = self._pending_end - len(self._pending) // 2
        out = bytearray()
        for at in range(0, whole, FRAME):
            mic = bytes(self._pending[2 * at : 2 * at + 2 * FRAME])
            index = first + at
            played = self.reference.take(index - self.delay + round(MARGIN * RATE), FRAME)
            cleaned = self.speex.process(mic, played.astype("<i2").tobytes())
            if float(np.mean(played**2)) > LOUD:
                self._follow(mic, cleaned)
            out += cleaned
            self._remember(np.frombuffer(mic, dtype="<i2").astype(np.float32), index + FRAME)
        del self._pending[: 2 * whole]
        return bytes(out), (self._pending_end - len(self._pending) // 2) / RATE

    def _follow(self, mic: bytes, cleaned: bytes) -> None:
        """Track how much of the echo the canceller removes."""
        self.adapted += FRAME
        for power, pcm in (("_echo_power", mic), ("_left_power", cleaned)):
            square = float(np.mean(np.frombuffer(pcm, dtype="<i2").astype(np.float32) ** 2))
            setattr(self, power, (1 - SMOOTHING) * getattr(self, power) + SMOOTHING * square)

    def _remember(self, mic: np.ndarray, end: int) -> None:
        self._heard = np.concatenate([self._heard[len(mic) :], mic])
        self._heard_end = end
        self._since_estimate += len(mic)
        if self._since_estimate >= ESTIMATE_EVERY:
            self._since_estimate = 0
            self._estimate()

    def _estimate(self) -> None:
        lo, hi = round(LAGS[0] * RATE), round(LAGS[1] * RATE)
        played = self.reference.take(self._heard_end - WINDOW - hi, WINDOW + hi - lo)
        if float(np.mean(played**2)) < LOUD or float(np.mean(self._heard**2)) < 1e2:
            return  # the assistant was silent (or the mic is): nothing to align
        lag = best_lag(self._heard, played, hi - lo)
        if lag is None:
            return
        delay = hi - lag
        self.estimates += 1
        if abs(delay - self.delay) > 0.003 * RATE:
            log.info("echo delay %.0f ms (was %.0f ms)", 1000 * delay / RATE,
                     1000 * self.delay / RATE)
            self.delay, self.adapted = delay, 0


def best_lag(heard: np.ndarray, played: np.ndarray, lags: int) -> int | None:
    """The offset into ``played`` (``len(heard) + lags`` samples) at which it matches
    ``heard`` best, or None without a clear peak."""
    size = 1 << (len(played) + len(heard)).bit_length()
    spectrum = np.fft.rfft(played, size) * np.conj(np.fft.rfft(heard, size))
    whitened = spectrum / np.maximum(np.abs(spectrum), 1e-9)  # PHAT: a sharp peak
    correlation = np.fft.irfft(whitened, size)[: lags + 1]
    peak = int(np.argmax(correlation))
    rms = float(np.sqrt(np.mean(correlation**2)))
    return peak if correlation[peak] > CLEAR_PEAK * rms else None
