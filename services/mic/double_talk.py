"""Double talk: whether speech heard while the assistant speaks is the user's voice over the
echo, or what the canceller left of the echo itself.

The canceller takes a steady share off the echo (``EchoTrust.reduction``, 13-30 dB on the
card). A voice in the room is not echo: the canceller cannot take it off, so over the
frames where the user talks it takes off far less than before (the user as loud as
the echo: about 3 dB). What is left of the echo alone is taken off as much as ever.
So a speech onset counts as the user's only when the canceller took at least
``STANDS_OUT`` dB less off its frames than off the second before it (the classic
energy-ratio double-talk detector of echo cancellers). An onset in a lull of the answer
(no loud echo in its frames, but the tail of the last word still coming back) counts
only when what the canceller let through is ``STANDS_OUT`` dB louder than what it
left of the echo in the second before.

Seen under a loaded CI machine: an answer alone interrupted itself, 11 s in, at 13 dB
taken off: Silero found 0.1 s of "voice" in the residual echo. The same frames were
taken off as much as the rest of the answer.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from services.mic.echo_timeline import RATE

STANDS_OUT = 6.0
"""dB less taken off the onset's frames than off the second before: the user's voice
half as loud as the echo (-6 dB) at the trust threshold of 12 dB takes off 6 dB; the
echo alone varies by 1-3 dB between a second and its loudest tenth."""
BEFORE = RATE
"""Samples before the onset whose echo sets what the canceller usually takes off."""
LOOK_BACK = 3 * RATE
"""Samples looked back for the echo an onset is compared with when the second before it
held none (the user spoke up in a pause between two sentences): the smoothed reduction
(``usual``) by then holds the user's own voice, taken off by 0-1 dB, and the whole
question was refused, onset after onset, as "taken off like the echo" (a whole-system
test on a fast host, 1 run in 3)."""
KEEP = 4 * RATE
"""Samples of history kept: an onset is announced ``[vad] min_speech`` (at most a few
tenths of a second) after it began."""


def power(pcm: bytes) -> float:
    """Mean square of PCM16 audio."""
    return float(np.mean(np.frombuffer(pcm, dtype="<i2").astype(np.float32) ** 2))


class DoubleTalk:
    def __init__(self) -> None:
        self._frames: deque[tuple[int, float, float, bool]] = deque()
        """(end sample, power heard, power left, whether the echo was loud) of each frame."""

    def add(self, end: int, mic: bytes, cleaned: bytes, loud: bool) -> None:
        """A frame ending at sample ``end``: what the mic heard, what the canceller left of
        it, and whether the assistant's audio was loud then."""
        self._frames.append((end, power(mic), power(cleaned), loud))
        while self._frames and self._frames[0][0] < end - KEEP:
            self._frames.popleft()

    def forget(self) -> None:
        self._frames.clear()

    def _powers(self, start: int, end: int | None, loud: bool) -> tuple[float, float, int]:
        """Summed power heard and left, and the count, of the frames ending after ``start``
        (and not after ``end``) whose echo was loud (``loud``) or not."""
        heard = left = 0.0
        count = 0
        for frame_end, mic, cleaned, was_loud in self._frames:
            if frame_end > start and (end is None or frame_end <= end) and was_loud == loud:
                heard, left, count = heard + mic, left + cleaned, count + 1
        return heard, left, count

    def taken_off(self, start: int, end: int | None = None) -> float | None:
        """dB the canceller took off the loud echo of the frames ending after ``start``
        (and not after ``end``); None when there was none."""
        heard, left, count = self._powers(start, end, loud=True)
        return None if not count else decibels(heard, left)

    def reference(self, start: int) -> float | None:
        """dB taken off the loud echo just before sample ``start``: the second before, or
        the last :data:`LOOK_BACK` when that second was a lull; None without any."""
        before = self.taken_off(start - BEFORE, start)
        return self.taken_off(start - LOOK_BACK, start) if before is None else before

    def voice_over_echo(self, start: int, usual: float) -> tuple[bool, float | None]:
        """Whether the audio from sample ``start`` on stands out from the echo (a voice
        in the room), and the dB taken off it (None in a lull of the answer); ``usual``:
        the dB taken off the echo lately, used when no loud echo came in the
        :data:`LOOK_BACK` before."""
        onset = self.taken_off(start)
        before = self.reference(start)
        if onset is not None:
            return onset <= (usual if before is None else before) - STANDS_OUT, onset
        _, left, count = self._powers(start, None, loud=False)
        _, residual, residual_count = self._powers(start - BEFORE, start, loud=True)
        if not count or not residual_count:
            return True, None  # no echo before to take it for: the room spoke
        louder = decibels(left / count, residual / residual_count)
        return louder >= STANDS_OUT, None


def decibels(power: float, reference: float) -> float:
    return float(10 * np.log10(max(power, 1.0) / max(reference, 1.0)))
