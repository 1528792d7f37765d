"""When a pause ends the turn: at a short pause if the end-of-turn model says the user has
finished, else after the long silence.

A person answers about 200 ms after the other has finished, but waits through a pause
mid-sentence ("what's the weather like in ... Rome tomorrow?"). A fixed silence gets one
of the two wrong: short cuts questions in two, long makes every answer late. So the
model hears the utterance once the pause reaches ``[vad] short_silence`` and closes the
turn there when it is confident enough (``[vad] end_of_turn_threshold``); otherwise the
turn waits up to ``[vad] silence``. ``[vad] end_of_turn = "silence"`` is the fixed
window alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from services.mic.vad import RATE
from settings.schema import VadConfig

log = logging.getLogger(__name__)

TurnModel = Callable[[bytes], float]
"""The probability that the speaker has finished, from 16 kHz PCM16 audio ending at the
pause."""


class Endpointer:
    def __init__(self, vad: VadConfig, model: TurnModel | None = None) -> None:
        self.long = round(vad.silence * RATE)
        self.short = round(vad.short_silence * RATE)
        self.threshold = vad.end_of_turn_threshold
        self.model = model if vad.end_of_turn == "model" else None
        self.probability: float | None = None
        """The model's verdict at the latest short pause (None before any)."""

    def ends(self, audio: bytes | bytearray | None, silent: int, step: int) -> bool:
        """Whether the turn ends now: ``silent`` samples of silence so far, the latest
        ``step`` of them just heard; ``audio`` is the utterance with that silence (None:
        nothing worth judging, only the long silence ends it)."""
        if silent >= self.long:
            return True
        if audio is None or self.model is None or not silent - step < self.short <= silent:
            return False  # the model judges each pause once, when it reaches the short wait
        self.probability = self.model(bytes(audio))
        complete = self.probability >= self.threshold
        log.debug("end of turn: p=%.2f after %.2f s of silence: %s", self.probability,
                  silent / RATE, "closes" if complete else "waits")
        return complete


def load_turn_model(vad: VadConfig) -> TurnModel | None:
    """The end-of-turn model ``[vad] end_of_turn`` asks for, loaded once (None: silence)."""
    if vad.end_of_turn != "model":
        return None
    from services.mic.smart_turn import SmartTurn

    return SmartTurn()
