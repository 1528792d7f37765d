"""A question the user went on with: its first part is not answered, it joins the rest.

The mic ends a turn at a short pause when the question sounds finished, and the answer
is prepared at once. When the user goes on speaking before any of that answer was heard
("What's the weather like in" ... "Rome tomorrow?"), the mic says so with a
``BargeIn(reason="resumed")``: the turn that was closed too soon is cancelled (nothing of
it reaches the history), and its words become the start of the turn that the new speech
starts, in its guesses as in its final transcript. If that new speech turns out to be no
speech (the STT drops it, or fails), the first part is asked alone: nothing is lost.
The resumption may come before the first part's own final transcript (the STT still
at work on it): that transcript then asks nothing and becomes the start.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from bus.messages import BargeIn
from services.dialogue.turn import TurnRequest

log = logging.getLogger(__name__)

RESUMED = "resumed"
"""The ``BargeIn.reason`` of speech that goes on with the question before its answer."""
REMEMBERED = 16
SENTENCE_END = ".?!。？！…"


def joined(first: str, rest: str) -> str:
    """One question from its two parts: the first part's closing punctuation goes (Whisper
    ends every transcript as a sentence), and scripts written without spaces get none."""
    first = first.strip().rstrip(SENTENCE_END).rstrip()
    rest = rest.strip()
    if not first or not rest:
        return first or rest
    if _unspaced(first[-1]) or _unspaced(rest[0]):
        return first + rest
    return f"{first} {rest}"


def _unspaced(char: str) -> bool:
    """Kana, kanji and their punctuation: Japanese is written without spaces."""
    return "\u3000" <= char <= "\u9fff" or "\uff00" <= char <= "\uffef"


class Resumptions:
    def __init__(self) -> None:
        self.firsts: OrderedDict[str, tuple[str, str]] = OrderedDict()
        """Turn the resumed speech starts → (session, the first part's question)."""
        self.cancelled: set[str] = set()
        """Turns cancelled because the user went on: their question is not remembered."""
        self.awaited: OrderedDict[str, str] = OrderedDict()
        """Turn resumed before its final transcript came → the turn that goes on with it."""

    def resumed(self, msg: BargeIn, asked: dict[str, tuple[str, str]]) -> bool:
        """Whether ``msg`` resumes a question this service asked; if so the question waits
        for the turn the new speech starts."""
        if msg.reason != RESUMED or not msg.turn or not msg.interrupted:
            return False
        if msg.interrupted in asked:
            self._start(msg.turn, asked[msg.interrupted])
            self.cancelled.add(msg.interrupted)
        else:  # its words are still on their way
            self.awaited[msg.interrupted] = msg.turn
            while len(self.awaited) > REMEMBERED:
                self.awaited.popitem(last=False)
        log.info("turn %s: the user went on speaking; turn %s continues its question",
                 msg.interrupted, msg.turn)
        return True

    def _start(self, turn: str, first: tuple[str, str]) -> None:
        self.firsts[turn] = first
        while len(self.firsts) > REMEMBERED:
            self.firsts.popitem(last=False)

    def absorbs(self, turn: str | None, request: TurnRequest | None) -> bool:
        """The final transcript of ``turn`` (``request``; None: no words): whether it is the
        start of a question the user went on with, to be asked with the rest only."""
        rest = self.awaited.pop(turn or "", None)
        if rest is None or request is None:
            return False
        self._start(rest, (request.session, request.text))
        return True

    def was_cancelled(self, turn: str) -> bool:
        """Whether ``turn`` was cancelled for a resumption (once: the flag is cleared)."""
        if turn in self.cancelled:
            self.cancelled.discard(turn)
            return True
        return False

    def text(self, turn: str | None, text: str) -> str:
        """The whole question for a transcript (or guess) of ``turn``."""
        first = self.firsts.get(turn or "")
        return text if first is None else joined(first[1], text)

    def finish(self, turn: str | None) -> None:
        """The final transcript of ``turn`` came: its first part is used."""
        self.firsts.pop(turn or "", None)

    def orphan(self, turn: str | None) -> tuple[str, str] | None:
        """The speech of ``turn`` brought no words: the first part, to be asked alone."""
        self.awaited.pop(turn or "", None)  # a first part with no words: the rest alone
        return self.firsts.pop(turn or "", None)
