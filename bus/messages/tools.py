"""The tool executor's catalog, and running a tool (``tools.*``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bus.message import Message
from bus.registry import register

_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What the model APIs accept as a function name."""


def _no_parameters() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """One tool of the catalog: what the model is offered and how the dialogue runs it.

    Not a message of its own: :class:`ToolCatalog` carries a list of them, and decoding
    checks each one here (a bad entry makes the catalog invalid, with the reason).
    """

    name: str
    """Letters, digits, ``_`` and ``-``, at most 64 (what the model APIs accept)."""
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=_no_parameters)
    """The JSON schema of the arguments (default: an object without properties)."""
    announce: dict[str, list[str]] = field(default_factory=dict)
    """Per language, phrases of which one is spoken while the tool runs."""
    timeout: float = 10.0
    """Seconds the executor lets it run."""
    intent: str = ""
    """The local intent it answers without the model (``HassGetWeather``); "" for none."""
    slots: dict[str, str] = field(default_factory=dict)
    """Its parameter → the intent slot whose words fill it."""

    def __post_init__(self) -> None:
        if not _TOOL_NAME.fullmatch(self.name):
            raise ValueError(f"bad tool name {self.name!r}")
        if self.timeout <= 0:
            raise ValueError(f"{self.name}: timeout must be positive, got {self.timeout!r}")
        if not all(p.strip() for phrases in self.announce.values() for p in phrases):
            raise ValueError(f"{self.name}: an empty announce phrase")


@register
@dataclass(frozen=True, kw_only=True)
class ToolCatalog(Message):
    """Every tool the executor offers, published at start-up, periodically and on request."""

    TOPIC = "tools.catalog"
    tools: list[ToolSpec]
    """One :class:`ToolSpec` per tool."""


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
