"""``python -m services.brain``: the HTTP API for other user interfaces, bridged onto the bus."""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import sys

from bus.client import Bus
from bus.process import load_or_exit
from services.brain.api import create_app
from services.brain.bridge import BrainBridge
from services.brain.server import listen, serve
from services.runner import ServiceMain, run_service, service_parser
from settings import Config
from settings.startup import brain_problems

log = logging.getLogger("services.brain")


def make_main(sock: socket.socket) -> ServiceMain:
    async def main(bus: Bus, config: Config, args: argparse.Namespace) -> None:
        bridge = BrainBridge(bus, config.brain.timeout, config.brain.max_pending)
        await bridge.start()
        watcher = asyncio.ensure_future(bridge.watch())
        bus.set_state("ready")
        host, port = sock.getsockname()[:2]
        log.info("brain: listening on http://%s:%s (OpenAPI at /docs)", host, port)
        try:
            await serve(create_app(bridge, config.brain.token), sock)
        finally:
            watcher.cancel()

    return main


def start(argv: list[str] | None = None) -> int:
    parser = service_parser("brain", "The HTTP API for other user interfaces.")
    args = parser.parse_args(argv)
    config = load_or_exit(args.config)
    for problem in brain_problems(config.brain):  # `config check` reports the same
        print(f"brain: refusing to start: {problem}", file=sys.stderr)
        return 2
    try:
        sock = listen(config.brain.host, config.brain.port)
    except OSError as exc:
        print(f"brain: {exc}", file=sys.stderr)
        return 2
    with sock:
        return run_service("brain", args, make_main(sock))


if __name__ == "__main__":
    sys.exit(start())
