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

The parts: ``echo_timeline.py`` (the reference kept, the streams' sample counts),
``echo_delay.py`` (where the echo is), ``echo_trust.py`` (whether the output can be
trusted), ``speex.py`` (the filter and the residual-echo suppressor).
"""

from __future__ import annotations

import numpy as np

from hearing.speex import SpeexCanceller
from services.mic.double_talk import DoubleTalk
from services.mic.echo_delay import EchoDelay
from services.mic.echo_timeline import LOUD, RATE, Reference, SampleClock
from services.mic.echo_trust import EchoTrust

__all__ = ["FRAME", "HOLD", "RATE", "EchoCanceller"]

FRAME = 160
"""Samples per canceller frame (10 ms)."""
TAIL = 2048
"""Samples of echo path the adaptive filter models (128 ms): reverberation and the
delay estimate's error."""
HOLD = 0.25
"""Seconds a mic frame may wait for the monitor's audio of its time (the two streams'
blocks arrive in turn, each late by up to 80 ms on a loaded machine): longer, and the
monitor is taken as stalled (zeros) and the canceller as not trusted."""
MARGIN = 0.02
"""Seconds the reference is taken earlier than the estimated delay, so the filter
sees the start of the echo path."""


class EchoCanceller:
    def __init__(self, delay: float = 0.05, monitor: bool = False) -> None:
        self.speex = SpeexCanceller(FRAME, TAIL, RATE)
        self.reference = Reference()
        self.echo_delay = EchoDelay(delay, monitor)
        self.trust = EchoTrust()
        self.double_talk = DoubleTalk()
        self.monitor = monitor
        self.hold = round(HOLD * RATE) if monitor else 0
        """Samples a mic frame waits for its reference: the monitor's is a continuous stream
        that comes in step; the speaker's comes ahead of the echo, or not at all (silence)."""
        self._monitor_clock = SampleClock("echo reference")
        self._pending = bytearray()
        self._pending_end = SampleClock("mic")
        self._trusted_from: int | None = None
        """Sample index from which the output has been trusted without a break."""

    @property
    def delay(self) -> int:
        """Samples from the reference's time to its echo in the mic (estimated)."""
        return self.echo_delay.samples

    @property
    def estimates(self) -> int:
        """Delay estimates made (``doctor`` and the tests read it)."""
        return self.echo_delay.estimates

    @property
    def adapted(self) -> int:
        """Samples of echo adapted on since the delay last moved."""
        return self.trust.adapted

    @property
    def reduction(self) -> float:
        """dB the canceller takes off the echo (over about the last second)."""
        return self.trust.reduction

    @property
    def converged(self) -> bool:
        """Whether what the canceller lets through can be taken for the room, not the echo."""
        return self.trust.converged and self.echo_delay.aligned

    def trusts(self, heard: float) -> bool:
        """Whether speech that started at ``heard`` (epoch seconds) can be the room's: the
        canceller was trusted from then on (an onset counts voiced frames from its start,
        and the echo that passed before convergence may be the first of them: measured,
        an answer alone interrupted itself at convergence, its onset 0.2 s before)."""
        return self.converged and self._trusted_from is not None and (
            round(heard * RATE) >= self._trusted_from
        )

    def taken_off_before(self, heard: float) -> float | None:
        """dB the canceller took off the loud echo just before ``heard`` (what a speech
        onset then is compared with); None when the echo was quiet then."""
        return self.double_talk.reference(round(heard * RATE))

    def voice_over_echo(self, heard: float) -> tuple[bool, float | None]:
        """Whether speech that started at ``heard`` (epoch seconds) stands out from the echo
        (``double_talk.py``), and the dB the canceller took off it."""
        return self.double_talk.voice_over_echo(round(heard * RATE), self.reduction)

    def played(self, pcm: bytes, start: float) -> None:
        """What the speaker played from ``start`` (epoch seconds)."""
        self.reference.add(pcm, start)

    def monitored(self, pcm: bytes, end: float, fresh: bool = False) -> None:
        """A block of the monitor, recorded until ``end`` (epoch seconds, as the mic's);
        ``fresh``: the first of a newly opened stream."""
        moves = self._monitor_clock.moves
        last = self._monitor_clock.advance(len(pcm) // 2, end, fresh)
        if moves != self._monitor_clock.moves:
            # Its indices were late: what is kept moves with them, the echo is further off.
            self.reference.end -= self._monitor_clock.corrected
            self._time_moved(self._monitor_clock.corrected)
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
        if moves != self._pending_end.moves:
            self._time_moved(-self._pending_end.corrected)
        first = last - len(self._pending) // 2
        whole = len(self._pending) // (2 * FRAME) * FRAME
        if self.hold:
            # Up to the frame whose reference has come, or that has waited long enough.
            lead = self.reference.end - (first - self.delay + round(MARGIN * RATE))
            ready = min(whole, max(lead, 0) // FRAME * FRAME)
            stalled = min(whole, max(last - first - self.hold, 0) // FRAME * FRAME)
            if stalled > ready:
                self.echo_delay.lose_alignment()  # cancelled against silence: echo passes
            whole = max(ready, stalled)
        out = bytearray()
        for at in range(0, whole, FRAME):
            mic = bytes(self._pending[2 * at : 2 * at + 2 * FRAME])
            index = first + at
            played = self.reference.take(index - self.delay + round(MARGIN * RATE), FRAME)
            cleaned = self.speex.process(mic, played.astype("<i2").tobytes())
            loud = float(np.mean(played**2)) > LOUD
            if loud:
                self.trust.follow(mic, cleaned, self.echo_delay.aligned)
            self.double_talk.add(index + FRAME, mic, cleaned, loud)
            out += cleaned
            heard = np.frombuffer(mic, dtype="<i2").astype(np.float32)
            if self.echo_delay.hear(heard, index + FRAME, self.reference):
                self.trust.distrust()
            if not self.converged:
                self._trusted_from = None
            elif self._trusted_from is None:
                self._trusted_from = index + FRAME
        del self._pending[: 2 * whole]
        return bytes(out), (last - len(self._pending) // 2) / RATE

    def _time_moved(self, delay_change: int) -> None:
        """A stream's count was set again: the delay follows a known correction, else the
        echo is lost until found. Trusted only once converged anew (on the card, the stale
        delay was found again, 3 dB taken off, and the echo interrupted the answer)."""
        if delay_change:
            self.echo_delay.samples += delay_change
        else:
            self.echo_delay.lose_alignment()
        self.trust.distrust()

    def distrust(self) -> None:
        """The user talked over the echo (a barge-in): the filter may have adapted to their
        voice, so its output is trusted again only once it has converged anew (seen under
        load: the answer after a barge-in interrupted itself 1 s in, 1 dB taken off)."""
        self.trust.distrust()
        self.double_talk.forget()
