"""When the assistant's own voice is in the audio, so that the mic must not hear it: while
the speaker speaks, while the room still echoes it (``[vad] deaf_tail``), and while it fades
out after a barge-in.

Driven by bus events and by the capture times of the audio, so audio that was captured
before an event is judged by what held then.
"""

from __future__ import annotations

import logging
import math

log = logging.getLogger(__name__)

BARGE_WAIT = 1.0
"""Seconds after a barge-in the mic waits for the speaker to say its audio fell silent
(``tts.interrupted``) before hearing again anyway: until then it hears the assistant."""
BARGE_MARGIN = 0.05
"""Seconds after the reported silence still deaf: the last faded samples in the air."""


class AssistantVoice:
    def __init__(self, deaf_tail: float, echo_cancelled: bool) -> None:
        self.echo_cancelled = echo_cancelled
        """The assistant's voice is taken out of the audio: the mic hears while it speaks
        (speech then interrupts it), and needs no deaf time after it."""
        self.deaf_tail = 0.0 if echo_cancelled else deaf_tail
        self.speaking = False
        self.deaf_until = -math.inf
        """Deaf until then: the room still echoes the voice that stopped."""
        self.speaker = ""
        """The service that said it is speaking; if it dies meanwhile, the mic hears again."""
        self.alive_until = math.inf
        self.turn: str | None = None
        """The turn the speaker said it is speaking (what a barge-in interrupts)."""
        self.cut_turn: str | None = None
        """The turn the latest barge-in interrupted: its speaking news is stale."""
        self.barging_until = -math.inf
        """Deaf until then: the interrupted audio is still fading out."""

    def deafens(self, captured: float) -> bool:
        """Whether the voice, its echo or its fade may be in audio captured at ``captured``."""
        return self.speaking or captured < max(self.deaf_until, self.barging_until)

    def crashed_by(self, captured: float) -> float | None:
        """When a speaker whose heartbeats stopped while it spoke is taken as silent, if
        that is before ``captured``: it crashed, and must not leave the mic deaf."""
        if self.speaking and captured > self.alive_until:
            log.warning("%s stopped sending heartbeats while speaking: hearing again", self.speaker)
            return self.alive_until
        return None

    def said(self, speaking: bool, when: float, speaker: str, turn: str | None) -> bool:
        """The speaker started or stopped (``when``: the message's time). Returns False for
        the news of a turn the barge-in already ended: no deaf tail in the user's question."""
        if turn is not None and turn == self.cut_turn:
            return False
        self.speaking = speaking
        self.turn = turn if speaking else None
        if speaking:
            self.speaker, self.alive_until = speaker, math.inf
        else:
            self.deaf_until = when + self.deaf_tail
        return True

    def heartbeat(self, service: str, state: str, when: float, interval: float) -> bool:
        """Whether this heartbeat says the speaker stopped speaking (it restarts or stops);
        a running speaker is alive for three more beats."""
        if not self.speaking or service != self.speaker:
            return False
        if state in ("starting", "stopping"):
            return True
        self.alive_until = when + 3 * interval
        return False

    def cut(self, when: float) -> None:
        """A barge-in, in audio ending at ``when``: the speaker fades out."""
        self.cut_turn, self.speaking, self.turn = self.turn, False, None
        if not self.echo_cancelled:
            self.barging_until = when + BARGE_WAIT

    def faded(self, silent: float) -> None:
        """The speaker's audio fell silent at ``silent`` after the barge-in."""
        if not self.echo_cancelled:
            self.barging_until = silent + BARGE_MARGIN
