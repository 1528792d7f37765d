"""What the brain's bridge answers the API with: an :class:`Answer`, or why not (each
refusal is an HTTP status); and the bridge's constants. The bridge itself, the brain's
Service, is :class:`services.brain.service.BrainBridge`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.base.names import DIALOGUE, HTTP_SESSIONS, TOOLS

SESSION_PREFIX = HTTP_SESSIONS
"""HTTP sessions live apart from the local voice session and the CLI's."""
REQUIRED = (DIALOGUE, TOOLS)
LIVE_STATES = ("ready", "degraded")
REMEMBERED = 1024
CLEAR_TIMEOUT = 5.0


class Unavailable(Exception):
    """A service the request needs is not on the bus (503)."""


class NoAnswer(Exception):
    """The dialogue service did not answer in time (504)."""


class Conflict(Exception):
    """A request id reused for a different question (409)."""


class TooLong(Exception):
    """The question is longer than the dialogue reads (413); the message says by how much.
    The cap is the dialogue's alone: every route to it meets there (the CLI's too)."""


class Busy(Exception):
    """Too many questions in progress already (429)."""


@dataclass(frozen=True)
class Answer:
    conversation: str
    control: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    confirmation: str = ""
    """The question of an action waiting for the user's yes (the session's next ask)."""
