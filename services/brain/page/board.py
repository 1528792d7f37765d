"""The recent turns the page shows, each folded as ``tap --turns`` folds it.

The stages, their names and their times come from :mod:`bus.turns` and
:mod:`bus.trace` (the tap's own fold), so the page and the tap never disagree;
on top, what the conversation shows (what was heard and in which language,
what was said) and the turn's messages as the tap prints them.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from bus.message import Message
from bus.messages import QuestionRequest, Reply, SpeakRequest, Transcript
from bus.tap import format_line
from bus.trace import as_dict, turn_of
from bus.turns import Timeline
from services.base.names import LOCAL_SESSION

KEEP = 50
"""Turns remembered: enough to scroll back through, little enough to send on every load."""
MESSAGES = 80
"""Messages kept of one turn (a long answer's pieces past it are not worth a row each)."""


@dataclass
class Turn:
    timeline: Timeline
    voice: bool = False
    lang: str = ""
    session: str = ""
    said: list[str] = field(default_factory=list)
    answer: str | None = None
    confirmation: str = ""
    messages: list[Message] = field(default_factory=list)

    def add(self, msg: Message) -> None:
        self.timeline.add(msg)
        if len(self.messages) < MESSAGES:
            self.messages.append(msg)
        if isinstance(msg, Transcript):
            self.voice, self.lang = True, msg.lang
        elif isinstance(msg, QuestionRequest):
            self.session, self.lang = msg.session, msg.lang or self.lang
        elif isinstance(msg, SpeakRequest) and not msg.speculative and msg.text:
            self.said.append(msg.text)
            self.lang = self.lang or msg.lang
        elif isinstance(msg, Reply):
            self.session, self.answer, self.confirmation = msg.session, msg.text, msg.confirmation


class TurnBoard:
    """The last :data:`KEEP` turns, by turn id, oldest first."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self.turns: OrderedDict[str, Turn] = OrderedDict()

    def add(self, msg: Message) -> dict[str, Any] | None:
        """Fold ``msg`` into its turn; the turn's view, or None for a message of no turn."""
        key = turn_of(msg)
        if key is None:
            return None
        turn = self.turns.get(key)
        if turn is None:
            turn = self.turns[key] = Turn(Timeline(key))
            while len(self.turns) > self.keep:
                self.turns.popitem(last=False)
        turn.add(msg)
        return view(turn)

    def recent(self) -> list[dict[str, Any]]:
        return [view(turn) for turn in self.turns.values()]

    def session_of(self, key: str) -> str | None:
        """A recent turn's session: its question's, or the voice session for a spoken one
        (its ``Reply``, which names the session, comes last)."""
        turn = self.turns.get(key)
        if turn is None:
            return None
        return turn.session or (LOCAL_SESSION if turn.voice else None)

    def messages(self, key: str) -> list[dict[str, Any]] | None:
        """The turn's messages as the tap prints them, with their time from its origin."""
        turn = self.turns.get(key)
        if turn is None:
            return None
        origin = turn.timeline.origin
        ordered = sorted(turn.messages, key=lambda m: m.ts)
        return [{"at": round(m.ts - origin, 3), "line": format_line(m)} for m in ordered]


def view(turn: Turn) -> dict[str, Any]:
    """What the page shows of a turn: the tap's record (``tap --turns --json``) and more."""
    timeline = turn.timeline
    answer = turn.answer if turn.answer is not None else " ".join(turn.said)
    return as_dict(timeline) | {
        "complete": timeline.complete,
        "voice": turn.voice,
        "lang": turn.lang,
        "session": turn.session,
        "answer": answer,
        "answered": turn.answer is not None,
        "confirmation": turn.confirmation,
    }
