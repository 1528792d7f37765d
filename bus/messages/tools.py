"""Messages of the tool executor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class ToolCatalog(Message):
    """Every tool the executor offers, published at start-up, periodically and on request."""

    TOPIC = "tools.catalog"
    tools: list[dict[str, Any]]
    """Each ``{"name", "description", "parameters": <JSON schema>,
    "announce": {lang: [phrases]}, "timeout": seconds}``."""


@register
@dataclass(frozen=True, kw_only=True)
class ToolCatalogRequest(Message):
    TOPIC = "tools.catalog.request"


@register
@dataclass(frozen=True, kw_only=True)
class ToolRequest(Message):
    """Run a tool; answered by a :class:`ToolResult` whose ``reply_to`` is this ``id`` (a
    repeated ``id`` runs once)."""

    TOPIC = "tools.call"
    name: str
    arguments: str
    """The model's arguments, a JSON object as text (validated by the executor)."""


@register
@dataclass(frozen=True, kw_only=True)
class ToolResult(Message):
    TOPIC = "tools.result"
    name: str
    content: str
    """What the model receives: stdout, or ``error: <reason>``."""
    ok: bool = True
    duration: float = 0.0
