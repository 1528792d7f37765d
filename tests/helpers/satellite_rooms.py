"""Rooms with real ``wyoming-satellite`` programs, served by the assistant's real processes.

Each room is a satellite (a FIFO for a mic, a file for a speaker); the stack is
the broker, embedded Whisper, Kokoro, the dialogue on a scripted LLM and the
satellites service. :meth:`Rooms.ask` speaks into a room's mic and returns what
its speaker said back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bus.client import Bus
from bus.messages import Heartbeat
from hearing.convert import decode_file
from tests.helpers.busrun import with_buses
from tests.helpers.hearing import transcribe
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.helpers.ports import free_port
from tests.helpers.satellite import SatellitePeer, satellite_python
from tests.helpers.service_stack import Stack, wait_state
from tests.helpers.speaker import CACHE, NO_SOUND_SERVER
from tests.helpers.speech import spoken

Responder = Callable[[dict[str, Any]], dict[str, Any]]


def speech(sentence: str) -> bytes:
    return b"".join(decode_file(spoken(sentence)))  # 16 kHz mono PCM16


class Rooms:
    def __init__(self, stack: Stack, llm: ScriptedLLM, peers: dict[str, SatellitePeer]):
        self.stack = stack
        self.llm = llm
        self.peers = peers

    def ask(self, room: str, *said: str | float) -> str:
        """Speak into the room's mic, once it listens again after its last answer: each
        sentence followed by 1.5 s of quiet, each number as that many seconds of quiet;
        what its speaker said back next."""
        peer = self.peers[room]
        before = len(peer.answers())
        self._say(room, said)
        asyncio.run(until(lambda: len(peer.answers()) > before,
                          f"an answer from the {room} speaker", timeout=120))
        samples, _ = peer.answers()[before]
        return transcribe(samples)

    def wake(self, room: str, *said: str | float) -> None:
        """Speak into the mic of a room with a wake word service of its own, as
        :meth:`ask`, until that service has detected the word once more: from then on
        the satellite streams its mic to the assistant."""
        peer = self.peers[room]
        before = len(peer.detections())
        self._say(room, said)
        asyncio.run(until(lambda: len(peer.detections()) > before,
                          f"the wake word in the {room}", timeout=60))

    def _say(self, room: str, said: tuple[str | float, ...]) -> None:
        peer = self.peers[room]
        self.wait_listening(room)
        for part in said:
            if isinstance(part, float):
                peer.say(b"", silence=part)
            else:
                peer.say(speech(part))

    def asked(self, since: int) -> list[str]:
        """The questions the LLM was asked after its first ``since`` requests."""
        return [str(request["messages"][-1]["content"]).lower()
                for request in self.llm.requests[since:]]

    def wait_listening(self, room: str) -> None:
        """Until the room hears again: it does not while it answers."""
        async def listening(bus: Bus) -> None:
            await bus.wait_for(Heartbeat, lambda h: h.service == "satellites"
                               and f"{room} listening" in h.detail, timeout=60)

        with_buses(self.stack.endpoints, ["test"], listening)


@contextmanager
def served_rooms(folder: Path, names: tuple[str, ...], satellite: str, responder: Responder,
                 config: str = "", own_wake_word: bool = False) -> Iterator[Rooms]:
    """One satellite per name, each configured with the ``satellite`` keys, and the
    stack's ``config`` tables besides; the LLM answers with ``responder``. With
    ``own_wake_word`` each satellite detects "Okay Nabu" itself, with our Wyoming
    server (``services.wyoming``) as its wake word service."""
    satellite_python()  # made once, before any clock runs
    modules = ["services.stt", "services.tts", "services.dialogue", "services.satellites"]
    wake_uri = ""
    if own_wake_word:
        wyoming = free_port()
        config += f'[wyoming]\nenabled = true\nport = {wyoming}\n'
        modules.append("services.wyoming")
        wake_uri = f"tcp://127.0.0.1:{wyoming}"
    peers = {name: SatellitePeer(name, free_port(), folder, wake_uri) for name in names}
    # English only (Kokoro's accent makes a short question sound Japanese to Whisper
    # base), and every question to the scripted LLM: it is what reads the history.
    config += '[whisper]\nbackend = "embedded"\nlanguage = "en"\n[intents]\nmode = "off"\n' \
        + "".join(f'[satellite.{name}]\nuri = "tcp://127.0.0.1:{peer.port}"\n{satellite}\n'
                  for name, peer in peers.items())
    with ScriptedLLM() as llm:
        llm.responder = responder
        stack = Stack(config, top=f'llm = "{llm.url}"\n')
        try:
            for peer in peers.values():
                peer.start()
            env = {"PULSE_SERVER": NO_SOUND_SERVER, "XDG_CACHE_HOME": str(CACHE)}
            for module in modules:
                stack.start(module, env=env)

            async def ready(bus: Bus) -> None:
                await wait_state(bus, "stt", "ready", timeout=180)
                await bus.wait_for(Heartbeat, lambda h: h.service == "tts"
                                   and h.state in ("ready", "degraded"), timeout=180)
                await wait_state(bus, "satellites", "ready", timeout=60)
                if own_wake_word:
                    await wait_state(bus, "wyoming", "ready", timeout=60)

            with_buses(stack.endpoints, ["test"], ready)
            if own_wake_word:
                asyncio.run(until(lambda: all(p.wake_connected() for p in peers.values()),
                                  "the satellites at their wake word service", timeout=60))
            yield Rooms(stack, llm, peers)
        finally:
            for proc in stack.processes:  # shown when a test failed
                if proc.module in ("services.satellites", "services.dialogue",
                                   "services.wyoming"):
                    print(proc.module, proc.output()[-6000:])
            stack.close()
            for peer in peers.values():
                peer.close()
