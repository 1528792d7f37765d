"""The tool executor's catalog, and running a tool (``tools.*``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bus.message import Message
from bus.registry import register
from settings.toolrules import announce_problem, confirm_problem, name_problem


def _no_parameters() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """One tool of the catalog: what the model is offered and how the dialogue runs it.

    Not a message of its own: :class:`ToolCatalog` carries a list of them, and decoding
    checks each one here (a bad entry makes the catalog invalid, with the reason).
    """

    name: str
    """Letters, digits, ``_`` and ``-``, at most 64 (what the model APIs accept); not a
    built-in tool's (``adjust_volume``)."""
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
    modifies: bool = False
    """It changes something: the dialogue runs it only after the user's own yes, and the
    executor refuses a call of it that carries none (:attr:`ToolRequest.confirmed_by`)."""
    confirm: dict[str, str] = field(default_factory=dict)
    """Per language, the question asked before it runs (``{param}`` placeholders)."""

    def __post_init__(self) -> None:
        # The same rules as the tool files' (settings.toolrules): what `tools check`
        # passes is never refused here.
        problem = name_problem(self.name)
        if problem is not None:
            raise ValueError(problem)
        if self.timeout <= 0:
            raise ValueError(f"{self.name}: timeout must be positive, got {self.timeout!r}")
        # A question must have words; what it names is the tool file's check (the
        # catalog's parameters are free-form JSON schema, an MCP server's own).
        problem = announce_problem(self.announce) or confirm_problem(True, self.confirm)
        if problem is not None:
            raise ValueError(f"{self.name}: {problem}")


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
    session: str = ""
    """The conversation the call belongs to, for the log of actions."""
    confirmed_by: str = ""
    """The user's own words that said yes to this call ("yes, do it"); empty: none. A tool
    that modifies runs only with them, and its run is written to the log of actions."""


@register
@dataclass(frozen=True, kw_only=True)
class ToolResult(Message):
    TOPIC = "tools.result"
    name: str
    content: str
    """What the model receives: stdout, or ``error: <reason>``."""
    ok: bool = True
    duration: float = 0.0
