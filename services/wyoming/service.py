"""The Wyoming server's start: bind the port, then serve clients until stopped.

Off unless ``[wyoming] enabled``: the process then stays on the bus doing
nothing, so that the Procfile (where one process that exits stops them all)
and the systemd units keep one list of processes whatever the config says.
Wyoming has no authentication: a host other than loopback is served only
because the config says so, with a warning. On loopback only the assistant's own
user is served, as by the brain (``network.peers``): another user of this machine
gets an ``error`` event and the connection closes. At most ``MAX_CONNECTIONS`` are
open: past it the one idle longest is closed to make room, or the new one when
every other is busy.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import socket
from typing import TYPE_CHECKING

from wyoming.error import Error as WyomingError
from wyoming.event import async_write_event
from wyoming.server import AsyncServer, HandlerFactory

from bus.client import Bus
from network.peers import other_user
from network.sockets import listen
from network.wyoming_wire import MAX_LINE
from services.base.runner import ServiceMain, StartupError
from services.base.speech_bridge import SpeechBridge, voice_languages, wake_factory
from services.wyoming.handler import WyomingHandler, refusals
from settings import Config
from settings.startup import is_loopback

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncZeroconf

log = logging.getLogger(__name__)


class WyomingBridge(SpeechBridge):
    """The Wyoming server's side of the bus: an utterance to the STT, text to the TTS, and
    their answers back to the client that asked (the satellites ask the same way: the
    bridge itself is shared, in ``services/base/speech_bridge.py``)."""

MAX_CONNECTIONS = 16
"""Connections open at once. Home Assistant opens one per request (a pipeline's speech
to text, its text to speech, a ``describe``: a few at a time) and each wyoming-satellite
that uses our wake word holds one; 16 is a house full of them. With the audio each may
hold (``handler.MAX_AUDIO_SECONDS``) and the frame it may be reading
(``wyoming_wire.MAX_PAYLOAD``), all of them together hold at most about 50 MB. (Without
a limit, 150 connections holding audio took 654 MB, and idle sockets piled up until the
process ran out of files.)"""


def start(config: Config, _: argparse.Namespace) -> ServiceMain:
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
    from services.wyoming.info import describe  # httpx: only when serving

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
    """The wyoming package's TCP server on a socket bound already (by :func:`start`),
    serving only our own user on loopback, and at most ``MAX_CONNECTIONS`` at once."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock
        self._server: asyncio.Server | None = None

    async def start(self, handler_factory: HandlerFactory) -> None:
        callback = functools.partial(self._handler_callback, handler_factory)
        # The stream's limit is where reading a header line stops (wyoming_wire.MAX_LINE).
        self._server = await asyncio.start_server(callback, sock=self.sock, limit=MAX_LINE)

    async def _handler_callback(self, handler_factory: HandlerFactory,
                                reader: asyncio.StreamReader,
                                writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        stranger = other_user((peer[0], peer[1]), self.sock.getsockname()[1]) if peer else ""
        if stranger:
            await _refuse(writer, f"{stranger}: on loopback only the assistant's own user "
                                  "may use this server", "another-user")
            return
        if not self._make_room():
            await _refuse(writer, f"{MAX_CONNECTIONS} connections are open and busy; "
                                  "try again shortly", "busy")
            return
        await super()._handler_callback(handler_factory, reader, writer)

    def _make_room(self) -> bool:
        """Below ``MAX_CONNECTIONS`` after closing the connection idle longest, if needed;
        False when every one is busy."""
        handlers = [h for h in self._handlers.values()
                    if isinstance(h, WyomingHandler) and not h.closing]
        if len(handlers) < MAX_CONNECTIONS:
            return True
        idle = sorted((h for h in handlers if not h.busy), key=lambda h: h.last_active)
        excess = len(handlers) - MAX_CONNECTIONS + 1
        for handler in idle[:excess]:
            handler.close()
        refusals.warn("full", "wyoming: %d connections open: closed %d idle to make room",
                      len(handlers), min(len(idle), excess))
        return len(idle) >= excess

    async def run(self, handler_factory: HandlerFactory) -> None:
        await self.start(handler_factory)
        assert self._server is not None
        await self._server.serve_forever()

    async def stop(self) -> None:
        await super().stop()
        if self._server is not None:
            self._server.close()


async def _refuse(writer: asyncio.StreamWriter, text: str, code: str) -> None:
    """Tell a client why it is not served, and close its connection."""
    peer = writer.get_extra_info("peername")
    refusals.warn(code, "wyoming: refused a connection from %s: %s",
                  f"{peer[0]}:{peer[1]}" if peer else "a client", text)
    try:
        async with asyncio.timeout(5):
            await async_write_event(WyomingError(text=text, code=code).event(), writer)
    except (OSError, TimeoutError):
        pass
    finally:
        writer.close()


async def announce(port: int, host: str) -> AsyncZeroconf:
    """Announce ``_wyoming._tcp`` with zeroconf so Home Assistant discovers us."""
    from wyoming.zeroconf import HomeAssistantZeroconf  # imports zeroconf: only when asked

    address = None if host in ("0.0.0.0", "::", "") else host
    zeroconf = HomeAssistantZeroconf(port=port, name="desktop-assistant", host=address)
    await zeroconf.register_server()
    log.info("wyoming: announced as desktop-assistant._wyoming._tcp.local. (port %d)", port)
    return zeroconf._aiozc  # the package keeps it to itself, but it must be closed
