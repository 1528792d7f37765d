"""What a turn sends out as it goes: ``SpeakRequest`` pieces in order and ``ActionRequest``s
for the audio side, ``TextPiece``s for a text client.

Only turns spoken on this machine (voice turns from the mic) publish speech and
actions; text turns publish their text as it streams instead.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bus.client import Bus, RequestTimeout
from bus.messages import ActionRequest, SpeakRequest, TextPiece, VolumeState

log = logging.getLogger(__name__)

MAX_SPOKEN_CHARS = 1500
"""Most characters of its answer one turn hands the speaker (about a minute and a half of
speech): the model can write on for pages, and the speaker would read them all. Whole
sentences are said until the next would pass it; the reply and the history keep all."""

CONTROL_ANSWER_TIMEOUT = 2.0
"""Seconds the end of a turn waits for the speaker's answer to its controls: it answers at
once when it runs; without it the history keeps the model's words."""


class Speech:
    def __init__(self, bus: Bus, turn: str, lang: str, local: bool, speculative: bool = False):
        self._bus = bus
        self.turn = turn
        self.lang = lang
        self.local = local
        self.speculative = speculative
        """Pieces are sent as speculative (held by the audio side) until this turns False."""
        self.seq = 0
        self.finished = False
        self.spoken_chars = 0
        self.cut = False
        """The answer passed :data:`MAX_SPOKEN_CHARS`: nothing more of it is spoken."""
        self._control_answer: asyncio.Future[VolumeState] | None = None

    def say(self, text: str, kind: str = "answer") -> None:
        if kind == "answer":
            text = self._bounded(text)
            if not text:
                return
        self._send(text, kind, final=False)

    def finish(self, text: str = "", kind: str = "answer") -> None:
        """The last piece of the turn (possibly empty): the audio side knows the turn is over."""
        if not self.finished:
            if kind == "answer":
                text = self._bounded(text)  # past the bound: "", the turn still ends
            self._send(text, kind, final=True)
            self.finished = True

    def _bounded(self, sentence: str) -> str:
        """What of ``sentence`` is spoken: all of it within :data:`MAX_SPOKEN_CHARS`, none
        after the bound was passed (a first sentence longer than it: its first words)."""
        room = MAX_SPOKEN_CHARS - self.spoken_chars
        if self.cut or len(sentence) <= room:
            if not self.cut:
                self.spoken_chars += len(sentence)
            return "" if self.cut else sentence
        self.cut = True
        log.warning(
            "turn %s: the answer passed %d characters: the rest is not spoken",
            self.turn,
            MAX_SPOKEN_CHARS,
        )
        if self.spoken_chars:
            return ""
        head = sentence[:room].rsplit(" ", 1)[0]
        self.spoken_chars = len(head)
        return head

    def show(self, text: str, round_number: int) -> None:
        """The answer's text as it streams, for a text turn's client (a voice turn says it)."""
        if not self.local and text:
            self._bus.publish(TextPiece(text=text, round=round_number, turn=self.turn))

    def control(self, actions: list[dict[str, Any]]) -> None:
        if self.local and actions:
            request = ActionRequest(actions=actions, lang=self.lang, turn=self.turn)
            # Waiting from before the publish: the answer cannot come first. A later control
            # of the turn replaces the wait (the speaker's answer covers the whole turn).
            answer = asyncio.ensure_future(
                self._bus.wait_for(VolumeState, lambda s: s.reply_to == request.id,
                                   timeout=CONTROL_ANSWER_TIMEOUT)
            )
            answer.add_done_callback(_retrieved)
            self._control_answer = answer
            self._bus.publish(request)

    async def said_instead(self) -> str:
        """The phrase the speaker says instead of the answer, because a control went past
        a limit ("これ以上大きくできません"); "" when the answer is said."""
        if self._control_answer is None:
            return ""
        try:
            return (await self._control_answer).said_instead
        except RequestTimeout:
            log.warning("turn %s: the speaker did not answer its controls", self.turn)
            return ""

    def _send(self, text: str, kind: str, final: bool) -> None:
        if not self.local:
            return
        self._bus.publish(
            SpeakRequest(text=text, lang=self.lang, kind=kind, seq=self.seq, final=final,
                         turn=self.turn, speculative=self.speculative)
        )
        self.seq += 1


def _retrieved(answer: asyncio.Future[VolumeState]) -> None:
    """A turn that failed never asks for its answer: its timeout is not an error to report."""
    if not answer.cancelled():
        answer.exception()
