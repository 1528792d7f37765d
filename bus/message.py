"""The envelope every message carries, and the base class of all message types."""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field
from typing import ClassVar

SCHEMA_VERSION = 2
"""The contract's major version: sent in every message as ``v``; a receiver refuses a
message whose ``v`` is newer than its own (docs/bus.md, "Contract versions")."""


_prefix = ""
_counter: itertools.count[int] = itertools.count()


def _reset_ids() -> None:
    global _prefix, _counter
    _prefix = os.urandom(8).hex()
    _counter = itertools.count()


_reset_ids()
os.register_at_fork(after_in_child=_reset_ids)


def new_id() -> str:
    """A unique id for a message, a turn, a call or a request.

    A random 64-bit prefix per process plus a counter: unique across
    processes and restarts, and cheap enough for every message (a uuid4
    costs several times more on the hot path).
    """
    return f"{_prefix}{next(_counter):08x}"


@dataclass(frozen=True, kw_only=True)
class Message:
    """Base of every message type: the envelope fields.

    Subclasses are frozen, keyword-only dataclasses with a ``TOPIC`` and are
    registered with :func:`bus.registry.register`.
    """

    TOPIC: ClassVar[str] = ""

    v: int = SCHEMA_VERSION
    """Contract version of the envelope and body; a newer one than the receiver's is refused."""
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
    reply_to: str | None = None
    """On an answer: the ``id`` of the request it answers (for a voice turn's
    :class:`Reply`, the turn id: the turn is the request). The only link from an
    answer to its question, so :meth:`bus.client.Bus.request` needs no predicate."""
