"""Messages of the dialogue service and its clients (CLI, brain)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class Ask(Message):
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
    """The answer to an :class:`Ask` or to a voice turn (``request_id`` = turn id)."""

    TOPIC = "dialogue.reply"
    request_id: str
    session: str
    conversation: str
    control: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    """A short code when the turn failed (``llm-unavailable``…); the
    conversation then holds the apology that was spoken."""


@register
@dataclass(frozen=True, kw_only=True)
class ClearHistory(Message):
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
class Say(Message):
    """A piece of text to speak now, in order of ``seq`` within the turn."""

    TOPIC = "tts.say"
    text: str
    lang: str = "en"
    kind: str = "answer"
    """``answer``, ``announce``, ``error`` or ``notice``."""
    seq: int = 0
    final: bool = False
    """The last piece of this turn's reply (its text may be empty)."""
    speculative: bool = False
    """Prepared before the question was final: synthesize it, but play it only once a
    :class:`Speculation` for the turn confirms it; drop it if that says no."""


@register
@dataclass(frozen=True, kw_only=True)
class Speculation(Message):
    """The verdict on a turn's speculative work, once its final transcript is known."""

    TOPIC = "dialogue.speculation"
    confirmed: bool
    """True: the speculative ``Say`` pieces are the answer: play them, and what follows.
    False: drop them unplayed (the user went on speaking, or the text changed)."""


@register
@dataclass(frozen=True, kw_only=True)
class Control(Message):
    """Client actions of a voice turn, applied by the audio side before it speaks."""

    TOPIC = "control.action"
    actions: list[dict[str, Any]]
    """E.g. ``[{"type": "adjust_volume", "direction": "up"}]``."""
    lang: str = "en"


@register
@dataclass(frozen=True, kw_only=True)
class TraceMark(Message):
    """A stage of a turn that no other message shows (e.g. the LLM's first token)."""

    TOPIC = "trace.mark"
    stage: str
    detail: str = ""
