"""The brain's start: the bridge onto the bus, then the HTTP API on an already bound socket."""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket

from bus.client import Bus
from network.sockets import listen
from services.brain.api import create_app
from services.brain.bridge import BrainBridge
from services.brain.page.facts import page_address, page_facts
from services.brain.server import serve
from services.runner import ServiceMain, StartupError
from settings import Config
from settings.loader import config_dir
from settings.startup import brain_problems

log = logging.getLogger("services.brain")


def start(config: Config, _: argparse.Namespace) -> ServiceMain:
    """Refuse what ``config check`` refuses, and bind the port, before the bus is reached:
    a port in use then fails at once instead of after the bus connection."""
    problems = brain_problems(config.brain)
    if problems:
        raise StartupError(f"brain: refusing to start: {problems[0]}")
    try:
        sock = listen(config.brain.host, config.brain.port)
    except OSError as exc:
        raise StartupError(f"brain: {exc}") from None
    return serve_on(sock)


def serve_on(sock: socket.socket) -> ServiceMain:
    """The brain on ``sock``, bound already."""

    async def brain(bus: Bus, config: Config, args: argparse.Namespace) -> None:
        with sock:
            bridge = BrainBridge(bus, config.brain.timeout, config.brain.max_pending)
            await bridge.start()
            watcher = asyncio.ensure_future(bridge.serve())
            bus.set_state("ready")
            host, port = sock.getsockname()[:2]
            log.info("brain: listening on http://%s:%s (OpenAPI at /openapi.json)", host, port)
            log.info("brain: the page at %s", page_address(config.brain))
            page = page_facts(config, config_dir(args.config))
            try:
                await serve(create_app(bridge, config.brain, page), sock, config.brain)
            finally:
                watcher.cancel()

    return brain
