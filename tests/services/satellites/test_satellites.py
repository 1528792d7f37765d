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
from tests.helpers.busrun import with_buses
from tests.helpers.llm_chunks import call, text, tool_calls
from tests.helpers.satellite_rooms import Rooms, served_rooms
from tests.helpers.service_stack import wait_state
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


@pytest.fixture(scope="module")
def rooms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rooms]:
    with served_rooms(tmp_path_factory.mktemp("rooms"), ("kitchen", "bedroom"),
                      "wake = false", answer) as served:
        yield served


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

