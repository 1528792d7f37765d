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
    """Short and stable, e.g. ``stt-unavailable``, ``llm-unavailable``."""
    message: str


@register
@dataclass(frozen=True, kw_only=True)
class Probe(Message):
    """Published until it comes back, to know the path through the broker is up."""

    TOPIC = "sys.probe"
    nonce: str
