"""The envelope every message carries, and the base class of all message types."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import ClassVar

SCHEMA_VERSION = 1


def new_id() -> str:
    """A unique id for a message, a turn, a call or a request."""
    return uuid.uuid4().hex


@dataclass(frozen=True, kw_only=True)
class Message:
    """Base of every message type: the envelope fields.

    Subclasses are frozen, keyword-only dataclasses with a ``TOPIC`` and are
    registered with :func:`bus.registry.register`.
    """

    TOPIC: ClassVar[str] = ""

    v: int = SCHEMA_VERSION
    """Schema version of the envelope and body."""
    id: str = field(default_factory=new_id)
    """Unique id of this message."""
    ts: float = field(default_factory=time.time)
    """When it was created, epoch seconds."""
    src: str = ""
    """The sending service; filled in by the bus client when empty."""
    turn: str | None = None
    """One id per question, carried by every message of that question."""
    site: str | None = None
    """Which mic/speaker pair (room) the message belongs to."""
