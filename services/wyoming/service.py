"""The Wyoming server's start: bind the port, then serve clients until stopped.

Off unless ``[wyoming] enabled``: the process then stays on the bus doing
nothing, so that the Procfile (where one process that exits stops them all)
and the systemd units keep one list of processes whatever the config says.
Wyoming has no authentication: a host other than loopback is served only
because the config says so, with a warning.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from wyoming.server import AsyncServer, HandlerFactory

from bus.client import Bus
from services.runner import ServiceMain, StartupError
from services.wyoming.bridge import WyomingBridge
from services.wyoming.handler import WakeDetector, WyomingHandler
from settings import Config
from settings.schema import WakeConfig
from settings.startup import is_loopback

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncZeroconf

log = logging.getLogger(__name__)


def prepare(config: Config, _: argparse.Namespace) -> ServiceMain:
    """Bind the port before the bus is reached: a port in use fails at once."""
    settings = config.wyoming
    if not settings.enabled:
        return idle
    if not is_loopback(settings.host):
        log.warning(
            "wyoming: listening on %s, beyond this machine: Wyoming has no authentication, "
            "so anyone who reaches port %d can use the speech to text, the voices and the "
            "wake word", settings.host, settings.port,
        )
    # Here, not at the top: off (the default), the process idles without FastAPI and uvicorn,
    # which the brain's server module brings (10 MB of RSS).
    from services.brain.server import listen

    try:
        sock = listen(settings.host, settings.port)
    except OSError as exc:
        raise StartupError(f"wyoming: {exc}") from None
    return functools.partial(serve_on, sock)


async def idle(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    log.info("wyoming: off ([wyoming] enabled = false); idling")
    bus.set_state("ready", "disabled")
    await asyncio.Event().wait()


async def serve_on(sock: socket.socket, bus: Bus, config: Config, _: argparse.Namespace) -> None:
    from services.wyoming.info import describe, voice_languages  # httpx: only when serving

    settings = config.wyoming
    bridge = WyomingBridge(bus, settings.timeout)
    bridge.subscribe(bus)
    await bus.wait_connected()  # answers to our first request cannot pass us by
    wake = wake_factory(config.wake)
    detector = wake() if wake is not None else None
    info = describe(config, (detector.model, getattr(detector, "word", detector.model))
                    if detector is not None else None)
    factory = functools.partial(
        WyomingHandler, bridge=bridge, info=info, voices=voice_languages(config),
        default_lang=config.audio.default_lang, wake=wake,
    )
    server = BoundServer(sock)
    await server.start(factory)
    host, port = sock.getsockname()[:2]
    log.info("wyoming: serving on tcp://%s:%s", host, port)
    announcer = await announce(port, settings.host) if settings.zeroconf else None
    bus.set_state("ready")
    try:
        await bridge.serve()
    finally:
        await server.stop()
        if announcer is not None:
            with contextlib.suppress(Exception):
                await announcer.async_close()


class BoundServer(AsyncServer):
    """The wyoming package's TCP server on a socket bound already (by :func:`prepare`)."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock
        self._server: asyncio.Server | None = None

    async def start(self, handler_factory: HandlerFactory) -> None:
        callback = functools.partial(self._handler_callback, handler_factory)
        self._server = await asyncio.start_server(callback, sock=self.sock)

    async def run(self, handler_factory: HandlerFactory) -> None:
        await self.start(handler_factory)
        assert self._server is not None
        await self._server.serve_forever()

    async def stop(self) -> None:
        await super().stop()
        if self._server is not None:
            self._server.close()


def wake_factory(config: WakeConfig) -> Callable[[], WakeDetector] | None:
    """A new wake word detector per ``detect`` (each keeps its stream's state), or None
    when the mic's wake word is not installed."""
    try:
        from services.mic.wake import WakeDetector as MicWakeDetector

        MicWakeDetector(config)
    except Exception as exc:  # not installed, or the model cannot load: no wake word
        log.info("wyoming: no wake word (%s)", exc)
        return None
    return functools.partial(MicWakeDetector, config)


async def announce(port: int, host: str) -> AsyncZeroconf:
    """Announce ``_wyoming._tcp`` with zeroconf so Home Assistant discovers us."""
    from wyoming.zeroconf import HomeAssistantZeroconf  # imports zeroconf: only when asked

    address = None if host in ("0.0.0.0", "::", "") else host
    zeroconf = HomeAssistantZeroconf(port=port, name="desktop-assistant", host=address)
    await zeroconf.register_server()
    log.info("wyoming: announced as desktop-assistant._wyoming._tcp.local. (port %d)", port)
    return zeroconf._aiozc  # the package keeps it to itself, but it must be closed
