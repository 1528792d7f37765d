"""The brain's bus side in this process, against a stand-in dialogue on a real broker."""

from __future__ import annotations

import asyncio

import pytest

from bus.client import Bus
from bus.messages import Heartbeat, QuestionRequest, Reply
from services.base.names import BRAIN, DIALOGUE
from services.brain.answers import Conflict, NoAnswer, Unavailable
from services.brain.service import BrainBridge
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.polling import until
from tests.helpers.processes import Process


async def connected(brain: Bus, dialogue: Bus, timeout: float = 5.0) -> BrainBridge:
    """A started bridge that has seen the stand-in dialogue's heartbeat."""
    bridge = BrainBridge(brain, timeout)
    await bridge.start()
    asyncio.ensure_future(bridge.serve())
    dialogue.subscribe(QuestionRequest.TOPIC)
    await dialogue.wait_path(brain)
    dialogue.publish(Heartbeat(service=DIALOGUE, pid=1, state="ready", version="t"))
    await until(lambda: bridge.liveness.alive(DIALOGUE), what="dialogue heartbeat")
    return bridge


def answer(dialogue: Bus, ask: QuestionRequest, text: str, error: str | None = None) -> None:
    dialogue.publish(
        Reply(reply_to=ask.id, session=ask.session, text=text, error=error)
    )


def test_a_retry_joins_the_request_still_running(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(brain: Bus, dialogue: Bus) -> None:
        bridge = await connected(brain, dialogue)
        first = asyncio.ensure_future(bridge.ask("s", "r1", "Hi", "voice", None))
        ask = await dialogue.recv(timeout=5)
        assert isinstance(ask, QuestionRequest)
        assert (ask.session, ask.client_type, ask.text) == ("brain:s", "voice", "Hi")
        second = asyncio.ensure_future(bridge.ask("s", "r1", "Hi", "voice", None))
        await asyncio.sleep(0)  # the retry runs up to its wait for the first attempt
        answer(dialogue, ask, "Once.")
        assert (await first).conversation == (await second).conversation == "Once."
        assert (await bridge.ask("s", "r1", "Hi", "voice", None)).conversation == "Once."
        with pytest.raises(Conflict):
            await bridge.ask("s", "r1", "Something else", "voice", None)
        assert await dialogue.recv(timeout=0.2) is None  # the dialogue saw one QuestionRequest only

    with_buses(config_folder.endpoints, [BRAIN, DIALOGUE], body)


def test_failed_answers_are_not_kept_and_silence_is_a_timeout(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(brain: Bus, dialogue: Bus) -> None:
        bridge = await connected(brain, dialogue, timeout=0.3)
        pending = asyncio.ensure_future(bridge.ask("s", "r2", "Hi", "text", None))
        ask = await dialogue.recv(timeout=5)
        assert isinstance(ask, QuestionRequest)
        answer(dialogue, ask, "Sorry.", error="llm-error")
        assert (await pending).error == "llm-error"
        with pytest.raises(NoAnswer, match="did not answer within 0.3 s"):
            await bridge.ask("s", "r2", "Hi", "text", None)  # asked again: not cached
        assert isinstance(await dialogue.recv(timeout=5), QuestionRequest)

    with_buses(config_folder.endpoints, [BRAIN, DIALOGUE], body)


def test_no_dialogue_heartbeat_is_unavailable(broker: Process, config_folder: ConfigFolder) -> None:
    async def body(brain: Bus) -> None:
        bridge = BrainBridge(brain, 1.0)
        await bridge.start()
        with pytest.raises(Unavailable, match="dialogue service is not running"):
            await bridge.ask("s", "r", "Hi", "text", None)
        ok, health = bridge.readiness()
        assert not ok and health["error"] == "no recent heartbeat from: dialogue, tools"

    with_buses(config_folder.endpoints, [BRAIN], body)
