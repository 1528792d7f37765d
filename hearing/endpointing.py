"""When a pause ends the turn: at a short pause if the end-of-turn model says the user has
finished, else after the long silence.

A person answers about 200 ms after the other has finished, but waits through a pause
mid-sentence ("what's the weather like in ... Rome tomorrow?"). A fixed silence gets one
of the two wrong: short cuts questions in two, long makes every answer late. So the
model hears the utterance once the pause reaches ``[vad] short_silence`` and the turn
may end there when it is confident enough (``[vad] end_of_turn_threshold``); otherwise
the turn waits up to ``[vad] silence``. With ``end_of_turn = "model+text"`` the words
have a say too: the turn ends only once the STT's guess of the audio up to this pause
has come, does not stop mid-sentence and was not left open by the STT
(``hearing/unfinished.py``). Waiting for the guess costs next to nothing: the
answer is made from that same transcript. When the guess does stop mid-sentence the
turn waits longer than ``[vad] silence`` (``UNFINISHED_WAIT``): a person waits out a
long pause after "what is the capital of".
``end_of_turn = "silence"`` is the fixed window alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from hearing.unfinished import dangling, left_open, trails_off
from hearing.vad import RATE
from settings.schema import VadConfig

log = logging.getLogger(__name__)

UNFINISHED_WAIT = 1.5
"""How many times ``[vad] silence`` a turn waits when the guess of its pause stops
mid-sentence: a pause of 1 s, which people make while looking for a word, plus the
trailing sound Silero drops, is more than the 1.2 s that a question the model merely
hears as unsure waits."""

Reading = Literal["finished", "unmarked", "open", "unfinished"]
"""What the words of a guess say: a whole sentence; a sentence without its closing mark
(it may go on: wait for ``[vad] silence`` unless the model is sure,
``[vad] end_of_turn_sure``); trailing off, left open by the STT (wait for ``[vad]
silence``); stopped where no sentence can (wait past it)."""

TurnModel = Callable[[bytes], float]
"""The probability that the speaker has finished, from 16 kHz PCM16 audio ending at the
pause."""


class Endpointer:
    def __init__(self, vad: VadConfig, model: TurnModel | None = None) -> None:
        self.long = round(vad.silence * RATE)
        self.longest = round(vad.silence * UNFINISHED_WAIT * RATE)
        self.short = round(vad.short_silence * RATE)
        self.threshold = vad.end_of_turn_threshold
        self.sure = vad.end_of_turn_sure
        self.model = model if vad.end_of_turn != "silence" else None
        self.reads = vad.end_of_turn == "model+text"
        self.probability: float | None = None
        """The model's verdict at the latest short pause (None before any)."""
        self.guess: tuple[int, Reading] | None = None
        """The latest guess: the end (sample position) of the audio it transcribes, and
        what its words say."""

    def heard(self, end: int, text: str, lang: str) -> None:
        """The STT's guess of the utterance up to sample position ``end``."""
        reading: Reading = ("unfinished" if dangling(text, lang)
                            else "open" if trails_off(text, lang)
                            else "unmarked" if left_open(text, lang) else "finished")
        self.guess = (end, reading)

    def ends(self, audio: bytes | bytearray | None, silent: int, step: int, end: int) -> bool:
        """Whether the turn ends now: ``silent`` samples of silence so far, the latest
        ``step`` of them just heard, after speech that ended at sample ``end``; ``audio``
        is the utterance with that silence (None: nothing worth judging, only the long
        silence ends it)."""
        if silent >= self.long:
            return silent >= self.longest or not self._stops_mid_sentence(end)
        if audio is None or self.model is None or silent < self.short:
            return False
        if self.judges(silent, step):
            self.probability = self.model(bytes(audio))
            log.debug("end of turn: p=%.2f after %.2f s of silence", self.probability,
                      silent / RATE)
        if self.probability is None or self.probability < self.threshold:
            return False
        if not self.reads:
            return True
        if self.guess is None or self.guess[0] != end:
            return False  # its words have not come yet
        reading = self.guess[1]
        return reading == "finished" or (reading == "unmarked" and self.probability >= self.sure)

    def judges(self, silent: int, step: int) -> bool:
        """Whether the model hears the utterance at this frame: once a pause, when it
        reaches ``short_silence``."""
        return self.model is not None and silent >= self.short > silent - step

    def _stops_mid_sentence(self, end: int) -> bool:
        """Whether the words of the pause after speech that ended at ``end`` have come
        and stop mid-sentence."""
        return self.reads and self.guess is not None and self.guess == (end, "unfinished")


def load_turn_model(vad: VadConfig) -> TurnModel | None:
    """The end-of-turn model ``[vad] end_of_turn`` asks for, loaded once (None: silence)."""
    if vad.end_of_turn == "silence":
        return None
    from hearing.smart_turn import SmartTurn, SmartTurnMissing

    try:
        return SmartTurn()
    except SmartTurnMissing as exc:  # a venv set up without bootstrap: slower, still right
        log.warning("mic: %s; until then a turn ends after [vad] silence (%.1f s)",
                    exc, vad.silence)
        return None
