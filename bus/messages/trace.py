"""Stages of a turn that no other message shows (``trace.*``)."""

from __future__ import annotations

from dataclasses import dataclass

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class TraceMark(Message):
    """A stage of a turn that no other message shows (e.g. the LLM's first token)."""

    TOPIC = "trace.mark"
    stage: str
    detail: str = ""
