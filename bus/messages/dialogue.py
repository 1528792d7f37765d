"""Questions to the dialogue and its answers (``dialogue.*``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class QuestionRequest(Message):
    """A text turn (CLI or HTTP API): answered by a :class:`Reply` with the same ``request_id``."""

    TOPIC = "dialogue.ask"
    request_id: str
    session: str
    text: str
    client_type: str = "text"
    """``text`` or ``voice``: a voice client is offered ``adjust_volume``."""
    lang: str | None = None


@register
@dataclass(frozen=True, kw_only=True)
class Reply(Message):
    """The answer to a :class:`QuestionRequest` or to a voice turn (``request_id`` = turn id)."""

    TOPIC = "dialogue.reply"
    request_id: str
    session: str
    text: str
    """The answer to speak or show."""
    control: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    """A short code when the turn failed (``llm-unavailable``…); ``text`` then
    holds the apology that was spoken."""


@register
@dataclass(frozen=True, kw_only=True)
class ClearHistoryRequest(Message):
    """Forget a session's conversation; answered by :class:`HistoryCleared`."""

    TOPIC = "dialogue.clear"
    request_id: str
    session: str


@register
@dataclass(frozen=True, kw_only=True)
class HistoryCleared(Message):
    TOPIC = "dialogue.cleared"
    request_id: str
    session: str



@register
@dataclass(frozen=True, kw_only=True)
class Speculation(Message):
    """The verdict on a turn's speculative work, once its final transcript is known."""

    TOPIC = "dialogue.speculation"
    confirmed: bool
    """True: the speculative ``SpeakRequest`` pieces are the answer: play them, and what follows.
    False: drop them unplayed (the user went on speaking, or the text changed)."""
