"""Other rooms: the real ``wyoming-satellite`` program as a peer, served by our assistant.

Two satellites (``kitchen`` and ``bedroom``), each with a FIFO for a mic and a
file for a speaker, and the assistant's real processes (broker, embedded
Whisper, Kokoro, the dialogue on a scripted LLM, the satellites service). A
question spoken into a satellite's mic must come back, spoken, out of its own
speaker; each keeps its own conversation and volume; one that dies and comes
back is served again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from bus.client import Bus
from bus.messages import Heartbeat, VolumeState
from services.mic.convert import decode_file
from tests.helpers.busrun import with_buses
from tests.helpers.hearing import transcribe
from tests.helpers.llm_chunks import call, text, tool_calls
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.helpers.ports import free_port
from tests.helpers.satellite import SatellitePeer, satellite_python
from tests.helpers.service_stack import Stack, wait_state
from tests.helpers.speaker import CACHE, NO_SOUND_SERVER
from tests.helpers.speech import spoken
from tests.helpers.words import recall, words

ANSWER = "It is sunny in Rome today, with a light wind from the sea."
QUESTION = "What is the weather like in Rome tomorrow?"
NAME_KEPT = "Nice to meet you, Peter."
NAME_KNOWN = "You told me your name before."
NAME_UNKNOWN = "I do not know your name yet."
LOUDER = "It is louder now."


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The LLM: it reads the conversation it is given, as a model would."""
    messages = body["messages"]
    if messages[-1]["role"] == "tool":
        return text(LOUDER)
    question = str(messages[-1]["content"]).lower()
    earlier = " ".join(str(m["content"]).lower() for m in messages[:-1] if m["role"] == "user")
    if "louder" in question:
        return tool_calls([call("adjust_volume", direction="up")])
    if "name is" in question:
        return text(NAME_KEPT)
    if "my name" in question:
        return text(NAME_KNOWN if "name is" in earlier else NAME_UNKNOWN)
    return text(ANSWER)


class Rooms:
    def __init__(self, stack: Stack, llm: ScriptedLLM, peers: dict[str, SatellitePeer]):
        self.stack = stack
        self.llm = llm
        self.peers = peers

    def ask(self, room: str, question: str) -> str:
        """Speak ``question`` into the room's mic; what its speaker said back."""
        peer = self.peers[room]
        before = len(peer.answers())

        async def listening(bus: Bus) -> None:  # it does not hear while it answers
            await bus.wait_for(Heartbeat, lambda h: h.service == "satellites"
                               and f"{room} listening" in h.detail, timeout=60)

        with_buses(self.stack.endpoints, ["test"], listening)
        peer.say(speech(question))
        asyncio.run(until(lambda: len(peer.answers()) > before,
                          f"an answer from the {room} speaker", timeout=120))
        samples, _ = peer.answers()[before]
        return transcribe(samples)


def speech(sentence: str) -> bytes:
    return b"".join(decode_file(spoken(sentence)))  # 16 kHz mono PCM16


@pytest.fixture(scope="module")
def rooms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rooms]:
    satellite_python()  # made once, before any clock runs
    folder = tmp_path_factory.mktemp("rooms")
    peers = {name: SatellitePeer(name, free_port(), folder) for name in ("kitchen", "bedroom")}
    # English only (Kokoro's accent makes a short question sound Japanese to Whisper
    # base), and every question to the scripted LLM: it is what reads the history.
    config = '[whisper]\nbackend = "embedded"\nlanguage = "en"\n[intents]\nmode = "off"\n' \
        + "".join(
        f'[satellite.{name}]\nuri = "tcp://127.0.0.1:{peer.port}"\nwake = false\n'
        for name, peer in peers.items())
    with ScriptedLLM() as llm:
        llm.responder = answer
        stack = Stack(config, top=f'llm = "{llm.url}"\n')
        try:
            for peer in peers.values():
                peer.start()
            env = {"PULSE_SERVER": NO_SOUND_SERVER, "XDG_CACHE_HOME": str(CACHE)}
            for module in ("services.stt", "services.tts", "services.dialogue",
                           "services.satellites"):
                stack.start(module, env=env)

            async def ready(bus: Bus) -> None:
                await wait_state(bus, "stt", "ready", timeout=180)
                await bus.wait_for(Heartbeat, lambda h: h.service == "tts"
                                   and h.state in ("ready", "degraded"), timeout=180)
                await wait_state(bus, "satellites", "ready", timeout=60)

            with_buses(stack.endpoints, ["test"], ready)
            yield Rooms(stack, llm, peers)
        finally:
            for proc in stack.processes:  # shown when a test failed
                if proc.module in ("services.satellites", "services.dialogue"):
                    print(proc.module, proc.output()[-6000:])
            stack.close()
            for peer in peers.values():
                peer.close()


def test_a_question_spoken_in_a_room_is_answered_out_of_its_speaker(rooms: Rooms) -> None:
    heard = rooms.ask("kitchen", QUESTION)
    assert recall(words(ANSWER), words(heard)) >= 0.8, heard
    asked = rooms.llm.requests[-1]["messages"][-1]["content"]
    assert recall(words(QUESTION), words(asked)) >= 0.8


def test_each_room_keeps_its_own_conversation(rooms: Rooms) -> None:
    assert "nice to meet you" in " ".join(words(rooms.ask("kitchen", "My name is Peter.")))
    elsewhere = rooms.ask("bedroom", "What is my name?")
    assert "know" in words(elsewhere) and "told" not in words(elsewhere), elsewhere
    bedroom_request = json.dumps(rooms.llm.requests[-1]["messages"]).lower()
    assert "name is" not in bedroom_request and "meet you" not in bedroom_request
    here = rooms.ask("kitchen", "What is my name?")
    assert "told" in words(here) and "know" not in words(here), here
    kitchen_request = json.dumps(rooms.llm.requests[-1]["messages"]).lower()
    assert "name is" in kitchen_request and "meet you" in kitchen_request


def rms(samples: np.ndarray) -> float:
    loud = samples[np.abs(samples) > 0.01]
    return float(np.sqrt(np.mean(loud**2)))


def test_each_room_keeps_its_own_volume(rooms: Rooms) -> None:
    async def louder(bus: Bus) -> VolumeState:
        waiting = asyncio.ensure_future(bus.wait_for(
            VolumeState, lambda s: s.site == "kitchen", timeout=120))
        await asyncio.to_thread(rooms.ask, "kitchen", "Make it louder, please.")
        return await waiting

    state = with_buses(rooms.stack.endpoints, ["test"], louder)
    assert state.volume == pytest.approx(1.1)
    rooms.ask("kitchen", QUESTION)
    rooms.ask("bedroom", QUESTION)
    kitchen, _ = rooms.peers["kitchen"].answers()[-1]
    bedroom, _ = rooms.peers["bedroom"].answers()[-1]
    assert rms(kitchen) / rms(bedroom) == pytest.approx(1.1, abs=0.03)


def test_a_satellite_that_dies_and_comes_back_is_served_again(rooms: Rooms) -> None:
    kitchen = rooms.peers["kitchen"]

    async def outage(bus: Bus) -> None:
        kitchen.kill()
        await bus.wait_for(Heartbeat, lambda h: h.service == "satellites"
                           and h.state == "degraded" and "kitchen" in h.detail
                           and "trying again" in h.detail, timeout=30)
        kitchen.start()
        await wait_state(bus, "satellites", "ready", timeout=60)

    with_buses(rooms.stack.endpoints, ["test"], outage)
    heard = rooms.ask("kitchen", QUESTION)
    assert recall(words(ANSWER), words(heard)) >= 0.8, heard

