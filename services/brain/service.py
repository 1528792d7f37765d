"""The brain's start: the bridge onto the bus, then the HTTP API on an already bound socket."""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket

from bus.client import Bus
from services.brain.api import create_app
from services.brain.bridge import BrainBridge
from services.brain.server import serve
from services.runner import ServiceMain
from settings import Config

log = logging.getLogger("services.brain")


def serve_on(sock: socket.socket) -> ServiceMain:
    """The brain on ``sock`` (bound before the start, so a port in use fails at once)."""

    async def brain(bus: Bus, config: Config, _: argparse.Namespace) -> None:
        bridge = BrainBridge(bus, config.brain.timeout, config.brain.max_pending)
        await bridge.start()
        watcher = asyncio.ensure_future(bridge.watch())
        bus.set_state("ready")
        host, port = sock.getsockname()[:2]
        log.info("brain: listening on http://%s:%s (OpenAPI at /openapi.json)", host, port)
        try:
            await serve(create_app(bridge, config.brain), sock)
        finally:
            watcher.cancel()

    return brain
