"""Echo cancellation: the assistant's own voice taken out of what the mic hears.

The reference is what was played: the output's monitor source, recorded by
the mic alongside its own audio (``[audio] echo_reference = "monitor"``,
:meth:`EchoCanceller.monitored`), or what the speaker sends (``tts.played``:
16 kHz PCM with the time each frame reaches the sound card,
:meth:`EchoCanceller.played`). The mic keeps the last seconds of it and,
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
KEEP = 8 * RATE
"""Samples of reference kept."""
LAGS = (-0.5, 4.0)
"""Seconds of delay searched for the speaker's reference: the reported latencies may be off
either way, and through PulseAudio's ALSA plugin the speaker hands audio over seconds
before the sound server plays it (0.7-3 s measured on the tests' virtual card), out of
PortAudio's sight."""
MONITOR_LAGS = (-0.1, 1.5)
"""Seconds searched for the monitor's: the output's buffer after the monitor (tens of ms
to a few hundred), the air, the mic's buffer."""
HOLD = 0.25
"""Seconds a mic frame may wait for the monitor's audio of its time (the two streams'
blocks arrive in turn, each late by up to 80 ms on a loaded machine): longer, and the
monitor is taken as stalled (zeros) and the canceller as not trusted."""
DECIMATE = 4
"""The delay is searched at 4 kHz (a quarter of the cost); the adaptive filter takes up
the quarter millisecond left."""
MARGIN = 0.02
"""Seconds the reference is taken earlier than the estimated delay, so the filter
sees the start of the echo path."""
REANCHOR = RATE // 20
"""Samples (50 ms) a block's reported time may be off before it is believed."""
LOST = RATE
"""Samples of blocks all reported late after which the lateness is taken as audio lost."""
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
        self._late = 0
        """Samples of blocks in a row reported later than ``REANCHOR`` after the count..."""
        self._least = 0
        """... and the least they were late by."""

    def advance(self, samples: int, reported_end: float, fresh: bool = False) -> int:
        reported = round(reported_end * RATE)
        if self.end is None or fresh:
            self.moves += self.end is not None
            self.end, self._late = reported, 0
            return self.end
        expected = self.end + samples
        off = reported - expected
        if off < REANCHOR:
            self._late = 0
            self.end = expected + (self._move(off, "counted late") if off <= -REANCHOR else 0)
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


class EchoCanceller:
    def __init__(self, delay: float = 0.05, monitor: bool = False) -> None:
        self.speex = SpeexCanceller(FRAME, TAIL, RATE)
        self.reference = Reference()
        self.delay = round(delay * RATE)
        """Samples from the reference's time to its echo in the mic (estimated)."""
        self.monitor = monitor
        self.lags = MONITOR_LAGS if monitor else LAGS
        self.hold = round(HOLD * RATE) if monitor else 0
        """Samples a mic frame waits for its reference: the monitor's is a continuous stream
        that comes in step; the speaker's comes ahead of the echo, or not at all (silence)."""
        self._monitor_clock = SampleClock("echo reference")
        self._pending = bytearray()
        self._pending_end = SampleClock("mic")
        self._heard = np.zeros(WINDOW, dtype=np.float32)
        self._heard_end = 0
        self._since_estimate = 0
        self.estimates = 0
        self.adapted = 0
        """Samples of echo adapted on since the delay last moved."""
        self._echo_power = self._left_power = 0.0
        self._converged = False
        self._aligned = False
        """The latest estimate found the echo in the mic at the delay in use: until then
        a quiet output may only mean that the echo has not come yet; and an estimate
        elsewhere means the path moves (a sound server's buffer growing) and the filter
        lags behind it."""
        self._candidate: int | None = None
        """A new delay seen once: taken when the next estimate agrees (the user talking
        over the echo can make one estimate wrong, seldom two alike)."""
        """Delay estimates made (``doctor`` and the tests read it)."""

    @property
    def converged(self) -> bool:
        """Whether what the canceller lets through can be taken for the room, not the echo."""
        return self._converged and self._aligned

    def played(self, pcm: bytes, start: float) -> None:
        """What the speaker played from ``start`` (epoch seconds)."""
        self.reference.add(pcm, start)

    def monitored(self, pcm: bytes, end: float, fresh: bool = False) -> None:
        """A block of the monitor, recorded until ``end`` (epoch seconds, as the mic's);
        ``fresh``: the first of a newly opened stream."""
        moves = self._monitor_clock.moves
        last = self._monitor_clock.advance(len(pcm) // 2, end, fresh)
        self._lose_alignment(moves != self._monitor_clock.moves)
        self.reference.add(pcm, (last - len(pcm) // 2) / RATE)

    def clean(self, pcm: bytes, end: float, fresh: bool = False) -> tuple[bytes, float]:
        """The mic's audio captured until ``end`` (epoch seconds) without the echo: the whole
        frames of it whose reference is there (the rest waits for the next call) and the
        time just after them."""
        if fresh:
            self._pending.clear()  # unrelated to what came before
        self._pending += pcm
        moves = self._pending_end.moves
        last = self._pending_end.advance(len(pcm) // 2, end, fresh)
        self._lose_alignment(moves != self._pending_end.moves)
        first = last - len(self._pending) // 2
        whole = len(self._pending) // (2 * FRAME) * FRAME
        if self.hold:
            # Up to the frame whose reference has come, or that has waited long enough.
            lead = self.reference.end - (first - self.delay + round(MARGIN * RATE))
            ready = min(whole, max(lead, 0) // FRAME * FRAME)
            stalled = min(whole, max(last - first - self.hold, 0) // FRAME * FRAME)
            if stalled > ready:
                self._lose_alignment(True)  # cancelled against silence: the echo passes
            whole = max(ready, stalled)
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
        return bytes(out), (last - len(self._pending) // 2) / RATE

    def distrust(self) -> None:
        """The user talked over the echo (a barge-in): the filter may have adapted to their
        voice, so its output is trusted again only once it has converged anew (seen under
        load: the answer after a barge-in interrupted itself 1 s in, 1 dB taken off)."""
        self.adapted, self._converged = 0, False
        self._echo_power = self._left_power = 0.0

    def _lose_alignment(self, moved: bool) -> None:
        """One stream's time moved: the echo is elsewhere until an estimate finds it again."""
        if moved:
            self._aligned, self._candidate = False, None

    @property
    def reduction(self) -> float:
        """dB the canceller takes off what the mic hears while the assistant speaks (over
        about the last second: the user talking over the echo lowers it)."""
        return float(10 * np.log10(max(self._echo_power, 1.0) / max(self._left_power, 1.0)))

    def _follow(self, mic: bytes, cleaned: bytes) -> None:
        """Track how much of the echo the canceller removes; until it has converged, that
        decides whether its output can be trusted (after, the user's voice, talking over the
        echo, counts as what is left)."""
        for power, pcm in (("_echo_power", mic), ("_left_power", cleaned)):
            square = float(np.mean(np.frombuffer(pcm, dtype="<i2").astype(np.float32) ** 2))
            setattr(self, power, (1 - SMOOTHING) * getattr(self, power) + SMOOTHING * square)
        if self._converged:
            return
        self.adapted += FRAME
        self._converged = self._aligned and self.adapted >= CONVERGED and (
            self._left_power < QUIET or self._echo_power > REDUCTION * self._left_power
        )

    def _remember(self, mic: np.ndarray, end: int) -> None:
        self._heard = np.concatenate([self._heard[len(mic) :], mic])
        self._heard_end = end
        self._since_estimate += len(mic)
        if self._since_estimate >= ESTIMATE_EVERY:
            self._since_estimate = 0
            self._estimate()

    def _estimate(self) -> None:
        lo, hi = round(self.lags[0] * RATE), round(self.lags[1] * RATE)
        played = self.reference.take(self._heard_end - WINDOW - hi, WINDOW + hi - lo)
        if float(np.mean(played**2)) < LOUD or float(np.mean(self._heard**2)) < 1e2:
            return  # the assistant was silent (or the mic is): nothing to align
        lag = best_lag(decimate(self._heard), decimate(played), (hi - lo) // DECIMATE)
        if lag is None:
            return
        delay = hi - lag * DECIMATE
        self.estimates += 1
        close = 0.005 * RATE
        if abs(delay - self.delay) <= close:
            self._candidate, self._aligned = None, True
            return
        self._aligned = False  # the echo path moved: not trusted until found again
        if self._candidate is None or abs(delay - self._candidate) > close:
            self._candidate = delay
            return
        log.info("echo delay %.0f ms (was %.0f ms)", 1000 * delay / RATE,
                 1000 * self.delay / RATE)
        self.delay, self._candidate = delay, None
        self.adapted, self._converged, self._aligned = 0, False, False


def decimate(samples: np.ndarray) -> np.ndarray:
    """Every ``DECIMATE`` samples averaged into one (a crude low-pass: enough to align)."""
    usable = len(samples) // DECIMATE * DECIMATE
    return samples[:usable].reshape(-1, DECIMATE).mean(axis=1)


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
