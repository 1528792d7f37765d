"""Barge-in on the mic's side: the user interrupts the assistant while it speaks, by the
wake word, or (with the echo canceller) by speaking.

The mic publishes ``BargeIn`` and opens for the question. Without the canceller
it hears the assistant too: it waits for the speaker's ``Interrupted`` (its audio
fell silent) before hearing, and a word the answer itself says is no barge-in.
"""

from __future__ import annotations

import logging

from bus.client import Bus
from bus.messages import BargeIn, Interrupted, Speaking, SpeakRequest
from hearing.vad import RATE
from services.mic.echo import EchoCanceller
from services.mic.gate import Gate
from services.mic.own_voice import OwnVoice

log = logging.getLogger(__name__)

OVER_THE_ECHO = 0.1
"""Seconds of voiced audio that make a speech onset while the assistant speaks, with the
canceller on, instead of ``[vad] min_speech``: through what is left of the echo, Silero
finds a one-word stop phrase ("Stop.", 0.66 s, as loud as the echo) voiced for only 4
frames (0.13 s) where alone it finds 15; the canceller passes the word whole. Measured
offline (``tests/services/mic/test_echo_stop_word.py``)."""


def onset_min_speech(usual: float, over_the_echo: bool) -> float:
    """Seconds of voiced audio that make a speech onset: ``usual`` (``[vad] min_speech``),
    or less while the assistant speaks through the canceller (``over_the_echo``)."""
    return min(usual, OVER_THE_ECHO) if over_the_echo else usual


class BargeIns:
    def __init__(self, bus: Bus, gate: Gate, echo: EchoCanceller | None, word: str) -> None:
        self.bus = bus
        self.gate = gate
        self.echo = echo
        self.own_voice = OwnVoice(word if echo is None else "")
        """Without the canceller the detector hears the assistant: not its own word."""
        self.latest = ""
        """The id of the latest ``BargeIn``: the speaker's ``Interrupted`` answers it."""

    def detect(self, word: str) -> None:
        """A wake word detector for ``word`` now hears the mic (loaded after the start):
        without the canceller it hears the assistant too, and its own saying of the word
        is no barge-in, as at a start in wake mode."""
        if self.echo is None:
            self.own_voice.phrase = word

    def by_word(self, heard: float, turn: str) -> bool:
        """The wake word heard at ``heard`` while the assistant speaks: a barge-in starting
        ``turn``, unless the assistant is saying the word itself."""
        if self.own_voice.says_word(self.gate.speaking_turn):
            return False
        self._publish("wake", heard, turn)
        return True

    def min_speech(self, usual: float) -> float:
        """Seconds of voiced audio that make a speech onset now (``usual``: ``[vad]
        min_speech``)."""
        return onset_min_speech(usual, self.echo is not None and self.gate.speaking)

    def by_speech(self, heard: float, turn: str) -> bool:
        """Speech started at ``heard`` while the assistant speaks (only with the echo
        canceller is the mic open then): a barge-in by ``turn``, unless the canceller still
        adapts (what it lets through may be the assistant's own voice)."""
        if self.echo is not None and not self.echo.trusts(heard):
            log.info("speech onset while the echo canceller adapts: not a barge-in (%s, "
                     "%.0f dB taken off)", "trusted only since after the onset"
                     if self.echo.converged else "not trusted", self.echo.reduction)
            return False
        if self.echo is not None:
            voice, onset = self.echo.voice_over_echo(heard)
            taken = "no echo" if onset is None else f"{onset:.0f} dB taken off it"
            before = self.echo.taken_off_before(heard)
            log.info("echo delay %.0f ms, %.0f dB taken off (%s just before); "
                     "speech onset: %s", 1000 * self.echo.delay / RATE, self.echo.reduction,
                     "no echo" if before is None else f"{before:.0f} dB", taken)
            if not voice:
                log.info("speech onset taken off like the echo: not a barge-in")
                return False
        self._publish("speech", heard, turn)
        return True

    def resumed(self, heard: float, turn: str) -> None:
        """Speech started at ``heard`` (the assistant silent): if no answer to the latest
        question was heard yet, ``turn`` goes on with that question, and the dialogue asks
        the two as one. Not a barge-in the mic waits on: nothing is playing."""
        question = self.gate.resumes(heard)
        if question is not None:
            log.info("turn %s: goes on with turn %s, whose answer is not heard yet", turn,
                     question)
            self.bus.publish(BargeIn(reason="resumed", interrupted=question, heard=heard,
                                     turn=turn))

    def _publish(self, reason: str, heard: float, turn: str) -> None:
        barge_in = BargeIn(reason=reason, interrupted=self.gate.speaking_turn or "",
                           heard=heard, turn=turn)
        log.info("turn %s: barge-in by %s", turn, reason)
        self.latest = barge_in.id
        self.bus.publish(barge_in)
        if self.echo is not None:
            self.echo.distrust()
        self.gate.on_barge_in(heard)

    # -- bus --------------------------------------------------------------------------

    def on_speaking(self, msg: Speaking) -> None:
        self.own_voice.on_speaking(msg.speaking)

    def on_say(self, msg: SpeakRequest) -> None:
        self.own_voice.said(msg.turn, msg.text)

    def on_interrupted(self, msg: Interrupted) -> None:
        """The speaker's audio fell silent after the latest barge-in: the gate times the
        mic's hearing from then."""
        if msg.reply_to == self.latest:
            self.gate.on_interrupted(msg.silent)
