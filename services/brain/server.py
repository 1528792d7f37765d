"""Serve the API with uvicorn inside the service's own event loop, on a socket bound up front."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI

from services.brain.connections import protocol_class
from settings.schema import BrainConfig

SHUTDOWN_GRACE = 5.0


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # run_service owns SIGTERM/SIGINT and cancels us; see serve()


KEEP_ALIVE = 5
"""Seconds a connection may stay idle between requests."""
MAX_HEAD = 16 * 1024
"""Bytes a request's line and headers may take (h11 answers 400 past it)."""


async def serve(app: FastAPI, sock: socket.socket, brain: BrainConfig) -> None:
    """Run until cancelled, then stop accepting and let open requests finish (briefly)."""
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="off",
        http=protocol_class(brain.client_timeout, brain.max_connections),
        timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=MAX_HEAD,
    )
    server = _Server(config)
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        await asyncio.shield(task)
    finally:
        if not task.done():
            end_streams = getattr(app.state, "end_streams", None)
            if end_streams is not None:  # the page's event streams would never end alone
                end_streams()
            server.should_exit = True
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, SHUTDOWN_GRACE)
