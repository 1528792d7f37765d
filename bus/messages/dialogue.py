"""Questions to the dialogue and its answers (``dialogue.*``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class QuestionRequest(Message):
    """A text turn (CLI or HTTP API): answered by a :class:`Reply` whose ``reply_to`` is
    this message's ``id``. A repeat of the same ``session`` and ``request_id`` gets the
    same answer, run once; the pair with another question gets ``request-reused``. A question
    of more than 8,000 characters is refused with ``question-too-long`` before the LLM sees it."""

    TOPIC = "dialogue.ask"
    session: str
    text: str
    client_type: str = "text"
    """``text`` or ``voice``: a voice client is offered ``adjust_volume``."""
    lang: str | None = None
    request_id: str | None = None
    """The client's own id for the question (the HTTP ``request_id``), kept apart per
    session; without one, the message ``id`` stands for it (a resent message)."""


@register
@dataclass(frozen=True, kw_only=True)
class Reply(Message):
    """The answer to a :class:`QuestionRequest` or to a voice turn (``reply_to`` = turn id)."""

    TOPIC = "dialogue.reply"
    session: str
    text: str
    """The answer to speak or show."""
    control: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    """One of :class:`bus.errors.ErrorCode` when the turn failed (``llm-unavailable``…);
    ``text`` then holds the apology that was spoken."""
    confirmation: str = ""
    """The question of an action that waits for the user's yes (``text`` asks it too): the
    session's next turn answers it (a client may offer Yes and No); empty when none."""


@register
@dataclass(frozen=True, kw_only=True)
class TextPiece(Message):
    """Text of a text turn's answer as the LLM streams it (``turn`` = the turn's id), for a
    client that shows the answer while it is written; the :class:`Reply` still holds it whole.
    Voice turns send ``SpeakRequest`` pieces instead."""

    TOPIC = "dialogue.text"
    text: str
    """As the model wrote it, spaces and line breaks included."""
    round: int
    """The LLM round (0, then one more after each round of tool calls): the reply joins the
    text of its rounds, each stripped, with a space."""


@register
@dataclass(frozen=True, kw_only=True)
class ClearHistoryRequest(Message):
    """Forget a session's conversation; answered by :class:`HistoryCleared`."""

    TOPIC = "dialogue.clear"
    session: str


@register
@dataclass(frozen=True, kw_only=True)
class HistoryCleared(Message):
    """The session's history is forgotten."""

    TOPIC = "dialogue.cleared"
    session: str



@register
@dataclass(frozen=True, kw_only=True)
class ReminderRequest(Message):
    """Say ``text`` at ``at`` (epoch seconds) and show it as a desktop notification: kept with
    the timers, so it survives a restart. Answered by :class:`ReminderSet`."""

    TOPIC = "dialogue.remind"
    at: float
    text: str
    """What to be reminded of, at most 200 characters: "call the dentist"."""
    lang: str | None = None
    """The language it is said in (default: the assistant's)."""


@register
@dataclass(frozen=True, kw_only=True)
class ReminderSet(Message):
    """The answer to a :class:`ReminderRequest`: the ``reminder``'s id, or why it was refused."""

    TOPIC = "dialogue.reminded"
    reminder: str = ""
    """Empty when it was refused."""
    problem: str = ""
    """Why it was refused, a sentence for the user ("it is in the past", "50 timers and
    reminders are kept already"); empty when it was set."""


@register
@dataclass(frozen=True, kw_only=True)
class Speculation(Message):
    """The verdict on a turn's speculative work, once its final transcript is known."""

    TOPIC = "dialogue.speculation"
    confirmed: bool
    """True: the speculative ``SpeakRequest`` pieces are the answer: play them, and what follows.
    False: drop them unplayed (the user went on speaking, or the text changed)."""
