"""Client actions of a voice turn (``control.*``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class ActionRequest(Message):
    """Apply a voice turn's client actions (volume) before its answer is spoken."""

    TOPIC = "control.action"
    actions: list[dict[str, Any]]
    """E.g. ``[{"type": "adjust_volume", "direction": "up"}]``."""
    lang: str = "en"
