"""uvicorn's HTTP/1.1 protocol with the limits slow clients need.

uvicorn closes a connection idle *between* requests (``timeout_keep_alive``)
but waits without end for a new connection's first byte and for the rest of
half-sent headers, and it accepts connections until the process runs out of
file descriptors: about a thousand idle sockets made the brain unreachable.
Here each request's headers must be complete ``client_timeout`` seconds after
its first byte (or after the connection opened), and past ``max_connections``
the connections idle the longest are closed to make room. (Bodies have their
own deadline in ``limits.RequestGuard``.)
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

SPARE_FILES = 64
"""File descriptors kept for everything but client connections (logs, the bus...)."""


class GuardedH11Protocol(H11Protocol):
    header_timeout = 10.0
    max_connections = 1000

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.last_active = self.loop.time()
        self.header_deadline: asyncio.TimerHandle | None = None
        self._arm()
        self._make_room()

    def data_received(self, data: bytes) -> None:
        self.last_active = self.loop.time()
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            if self.header_deadline is None:
                self._arm()  # part of a request's head came: the rest has until the deadline
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        self._disarm()  # uvicorn's keep-alive timer takes over until the next request's bytes
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def waiting(self) -> bool:
        """No request in progress: idle, or its head not complete yet."""
        return self.conn.their_state is h11.IDLE and (
            self.cycle is None or self.cycle.response_complete
        )

    def _arm(self) -> None:
        self.header_deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def _too_slow(self) -> None:
        self.header_deadline = None
        if not self.transport.is_closing():
            log.info("closed a connection whose request head took over %g s", self.header_timeout)
            self.transport.close()

    def _make_room(self) -> None:
        excess = len(self.connections) - self.max_connections
        if excess <= 0:
            return
        idle = sorted(
            (p for p in self.connections if isinstance(p, GuardedH11Protocol) and p.waiting()),
            key=lambda p: p.last_active,
        )
        for protocol in idle[:excess]:
            protocol.transport.close()
        if len(idle) < excess:  # every other connection is busy with a request
            self.transport.close()
        closed = min(len(idle), excess)
        log.info("closed %d idle connection(s) past [brain] max_connections", closed)


def protocol_class(header_timeout: float, max_connections: int) -> type[GuardedH11Protocol]:
    """The protocol for uvicorn's ``http=``, with these limits (the file limit permitting)."""
    files = open_files_limit()
    limits: dict[str, Any] = {
        "header_timeout": header_timeout,
        "max_connections": max(1, min(max_connections, files - SPARE_FILES)),
    }
    return type("BrainH11Protocol", (GuardedH11Protocol,), limits)


def open_files_limit() -> int:
    """Raise the soft limit on open files to the hard one (often 1,024 of 524,288 under
    systemd), and return it: each connection is a file."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft
