"""Where the echo is: the delay from the reference's time to its echo in the mic, found by
cross-correlating the mic with the reference while the assistant speaks.

The delay covers the air, the two devices' buffers and the errors in their
reported latencies; the adaptive filter takes up what is left.
"""

from __future__ import annotations

import logging

import numpy as np

from services.mic.echo_timeline import LOUD, RATE, Reference

log = logging.getLogger(__name__)

LAGS = (-0.5, 4.0)
"""Seconds of delay searched for the speaker's reference: the reported latencies may be off
either way, and through PulseAudio's ALSA plugin the speaker hands audio over seconds
before the sound server plays it (0.7-3 s measured on the tests' virtual card), out of
PortAudio's sight."""
MONITOR_LAGS = (-0.1, 4.0)
"""Seconds searched for the monitor's: the output's buffer after the monitor (tens of ms
to a few hundred), the air, the mic's buffer; and as far as the speaker's, for a path that
grew (on the tests' card, under load, the sound server's loopback grew from 80 ms to
about 1.5 s mid-answer: searched only to 1.5 s, the echo was lost for 20 s while the
canceller, taking nothing off, was still trusted)."""
DECIMATE = 4
"""The delay is searched at 4 kHz (a quarter of the cost); the adaptive filter takes up
the quarter millisecond left."""
ESTIMATE_EVERY = RATE // 2
WINDOW = 2 * RATE
"""Samples of mic and reference correlated per estimate."""
CLEAR_PEAK = 6.0
"""A peak is a delay only this many times above the correlation's RMS."""
MISSES = 2
"""Estimates in a row that find no echo, the assistant and the mic both loud, after which
the echo is taken as lost (moved out of reach, or the streams slipped): one may be the
user talking over it."""


class EchoDelay:
    def __init__(self, delay: float, monitor: bool) -> None:
        self.samples = round(delay * RATE)
        """Samples from the reference's time to its echo in the mic (estimated)."""
        self.lags = MONITOR_LAGS if monitor else LAGS
        self.estimates = 0
        """Delay estimates made (``doctor`` and the tests read it)."""
        self.aligned = False
        """The latest estimate found the echo in the mic at the delay in use: until then
        a quiet output may only mean that the echo has not come yet; and an estimate
        elsewhere means the path moves (a sound server's buffer growing) and the filter
        lags behind it."""
        self._candidate: int | None = None
        """A new delay seen once: taken when the next estimate agrees (the user talking
        over the echo can make one estimate wrong, seldom two alike)."""
        self._heard = np.zeros(WINDOW, dtype=np.float32)
        self._heard_end = 0
        self._since_estimate = 0
        self._misses = 0
        """Estimates in a row without a clear peak, the assistant and the mic loud."""

    def lose_alignment(self) -> None:
        """The echo is elsewhere (a stream's time moved, or the mic was cancelled against
        silence) until an estimate finds it again."""
        self.aligned, self._candidate = False, None

    def hear(self, mic: np.ndarray, end: int, reference: Reference) -> bool:
        """The mic's samples up to index ``end``; whether the delay moved (the filter must
        then adapt anew)."""
        self._heard = np.concatenate([self._heard[len(mic) :], mic])
        self._heard_end = end
        self._since_estimate += len(mic)
        if self._since_estimate < ESTIMATE_EVERY:
            return False
        self._since_estimate = 0
        return self._estimate(reference)

    def _estimate(self, reference: Reference) -> bool:
        lo, hi = round(self.lags[0] * RATE), round(self.lags[1] * RATE)
        played = reference.take(self._heard_end - WINDOW - hi, WINDOW + hi - lo)
        if float(np.mean(played**2)) < LOUD or float(np.mean(self._heard**2)) < 1e2:
            return False  # the assistant was silent (or the mic is): nothing to align
        lag = best_lag(decimate(self._heard), decimate(played), (hi - lo) // DECIMATE)
        if lag is None:
            self._misses += 1
            if self._misses == MISSES and self.aligned:
                log.info("echo not found near %.0f ms: not trusted until found again",
                         1000 * self.samples / RATE)
                self.lose_alignment()
            return False
        self._misses = 0
        delay = hi - lag * DECIMATE
        self.estimates += 1
        close = 0.005 * RATE
        if abs(delay - self.samples) <= close:
            self._candidate, self.aligned = None, True
            return False
        self.aligned = False  # the echo path moved: not trusted until found again
        if self._candidate is None or abs(delay - self._candidate) > close:
            self._candidate = delay
            return False
        log.info("echo delay %.0f ms (was %.0f ms)", 1000 * delay / RATE,
                 1000 * self.samples / RATE)
        self.samples, self._candidate = delay, None
        return True


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
