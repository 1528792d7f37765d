"""The questions of modifying tools that wait for the user's yes, one per session, as the
page follows them on the bus: the page offers Yes and No while one waits, and takes the
buttons away when it stops waiting.

The dialogue holds the action (``services/dialogue/confirmation.py``) and says nothing
when it lets one go, so the page reads the events the dialogue acts on:

- a ``Reply`` with a ``confirmation`` holds its session's question; one without: nothing
  waits in that session (its turn asked nothing, or took the question);
- the session's next turn takes it: the dialogue's ``confirm.answer`` mark (the session
  of the turn it marks is on the board), or the page's own answer (:meth:`Waiting.take`);
- the voice session's question lapses when the mic, opened for the answer, closed again
  unheard (``ListenClosed``: a follow-up's timeout), or the wake word cut the question off
  (``BargeIn``); any session's when its history is cleared;
- every question after :data:`EXPIRES`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bus.message import Message
from bus.messages import BargeIn, HistoryCleared, ListenClosed, Reply, TraceMark
from services.base.names import LOCAL_SESSION
from services.brain.answers import SESSION_PREFIX

EXPIRES = 60.0
"""The dialogue's ``confirmation.EXPIRES`` (a service may not import another's modules; a
test holds the two equal): seconds a question waits for its yes."""
MARGIN = 1.0
"""Seconds the page gives up before the dialogue does: the dialogue's clock started a
moment before its ``Reply`` was made, and a yes it no longer waits for would be taken for a
new question."""
PAGE_SESSION = SESSION_PREFIX + "page"
"""The page's own conversation (``actions.SESSION`` on the bus): its typed turn answers."""
ANSWERED_BY = {PAGE_SESSION: "page", LOCAL_SESSION: "voice"}
"""The sessions the page answers, and how: a typed turn of its own conversation, or
``/page/confirm`` in the voice session. Another client's session is its own to answer."""


@dataclass(frozen=True)
class Question:
    session: str
    turn: str
    """The turn that asked."""
    text: str
    expires: float
    """Epoch time the page stops offering it."""

    def view(self) -> dict[str, Any]:
        return {"session": self.session, "turn": self.turn, "question": self.text,
                "answered_by": ANSWERED_BY.get(self.session, "")}


class Waiting:
    """The question each session holds, by session."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.held: dict[str, Question] = {}

    def saw(self, msg: Message, session_of: Callable[[str], str | None]) -> bool:
        """Fold ``msg`` in (``session_of``: a recent turn's session); whether what waits
        changed."""
        if isinstance(msg, Reply):
            if not msg.confirmation:
                return self._drop(msg.session)
            turn = msg.turn or msg.reply_to or ""
            self.held[msg.session] = Question(msg.session, turn, msg.confirmation,
                                              msg.ts + EXPIRES - MARGIN)
            return True
        if isinstance(msg, TraceMark) and msg.stage == "confirm.answer" and msg.turn:
            session = session_of(msg.turn)
            return session is not None and self._drop(session)
        if isinstance(msg, ListenClosed) and msg.reason == "timeout" and msg.follow_up:
            return self._drop(LOCAL_SESSION)
        if isinstance(msg, BargeIn) and msg.reason == "wake":
            held = self.held.get(LOCAL_SESSION)
            return held is not None and held.turn == msg.interrupted and self._drop(LOCAL_SESSION)
        if isinstance(msg, HistoryCleared):
            return self._drop(msg.session)
        return False

    def expire(self) -> bool:
        """Drop the questions past their time; whether any was."""
        now = self.clock()
        late = [session for session, question in self.held.items() if question.expires <= now]
        for session in late:
            del self.held[session]
        return bool(late)

    def take(self, session: str, turn: str) -> Question | None:
        """The question ``turn`` asked in ``session``, taken for the answer the page sends;
        None when it no longer waits (answered, lapsed, or another turn asked since)."""
        self.expire()
        question = self.held.get(session)
        if question is None or question.turn != turn:
            return None
        del self.held[session]
        return question

    def views(self) -> list[dict[str, Any]]:
        return [question.view() for question in self.held.values()]

    def _drop(self, session: str) -> bool:
        return self.held.pop(session, None) is not None
