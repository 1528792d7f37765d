"""Messages every process uses: heartbeats, errors, the round-trip probe."""

from __future__ import annotations

from dataclasses import dataclass

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class Heartbeat(Message):
    """Sent every ``interval`` seconds by every process."""

    TOPIC = "sys.heartbeat"
    service: str
    pid: int
    state: str
    """``starting``, ``ready``, ``degraded`` or ``stopping``."""
    version: str
    interval: float = 1.0
    detail: str = ""
    """Why the state is not ``ready``, in a few words."""


@register
@dataclass(frozen=True, kw_only=True)
class Error(Message):
    """Something the user should hear about (with ``turn``) or an operator should see."""

    TOPIC = "sys.error"
    service: str
    code: str
    """One of :class:`bus.errors.ErrorCode` (``stt-unavailable``, ``llm-unavailable``…)."""
    message: str


@register
@dataclass(frozen=True, kw_only=True)
class Probe(Message):
    """Published until it comes back, to know the path through the broker is up: each copy
    carries the same ``id``, so the one that comes back is known by it."""

    TOPIC = "sys.probe"


@register
@dataclass(frozen=True, kw_only=True)
class TurnDropped(Message):
    """A voice turn ends here without an answer, on purpose: nothing the user said was lost.

    The mic sends it when it drops a turn it announced (it went deaf or its
    stream was reopened before the utterance ended); STT when the utterance
    held no words. Without it, a turn that ends in silence looks lost."""

    TOPIC = "sys.turn.dropped"
    reason: str
    """``no-speech`` (no words in the utterance), ``deaf`` (the mic went deaf or closed),
    ``reopened`` (the audio stream was reopened)."""
