"""Liveness from heartbeats, requests that give up when their answerer dies, tap lines."""

from __future__ import annotations

import asyncio
import json

import pytest

from bus.client import Bus
from bus.liveness import AnswererLost, Liveness, request_watched
from bus.messages import Heartbeat, QuestionRequest, Reply
from bus.tap import LivenessLines
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process


def beat(service: str, pid: int, state: str = "ready") -> Heartbeat:
    return Heartbeat(service=service, pid=pid, state=state, version="1", interval=0.5)


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def test_a_process_is_lost_when_it_restarts_stops_or_goes_silent() -> None:
    clock = Clock()
    live = Liveness(clock)
    assert live.working_pid("tools") is None and live.lost("tools", 7) is None
    assert live.saw(beat("tools", 7, "starting")) is False
    assert live.working_pid("tools") is None  # starting is not working yet
    live.saw(beat("tools", 7))
    assert live.working_pid("tools") == 7 and live.lost("tools", 7) is None
    clock.now += 1.6
    assert live.lost("tools", 7) == "sent no heartbeat for 1.6 s"
    assert live.saw(beat("tools", 8, "starting")) is True  # another process
    assert live.lost("tools", 7) == "restarted (pid 7 is now pid 8)"
    live.saw(beat("tools", 8, "stopping"))
    assert live.lost("tools", 8) == "is stopping"


def test_the_tap_prints_up_restarted_and_down() -> None:
    clock = Clock()
    lines = LivenessLines(as_json=False, clock=clock)
    assert "LIVENESS stt up (pid 1, ready)" in lines.saw(beat("stt", 1))[0]
    assert lines.saw(beat("stt", 1)) == [] and lines.check() == []
    assert "LIVENESS stt restarted (pid 2, was pid 1)" in lines.saw(beat("stt", 2))[0]
    clock.now += 1.6
    assert "LIVENESS stt down (pid 2, no heartbeat for 1.6 s)" in lines.check()[0]
    assert lines.check() == []  # once per outage
    as_json = LivenessLines(as_json=True, clock=clock)
    record = json.loads(as_json.saw(beat("stt", 3))[0])
    assert (record["liveness"], record["service"], record["pid"]) == ("up", "stt", 3)


def test_a_request_gives_up_when_its_answerer_restarts(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(asker: Bus, dialogue: Bus) -> None:
        live = Liveness()
        asker.subscribe(Heartbeat.TOPIC)
        await asker.wait_path(dialogue)

        async def follow() -> None:
            async for msg in asker:
                if isinstance(msg, Heartbeat):
                    live.saw(msg)

        feeder = asyncio.ensure_future(follow())
        dialogue.publish(beat("dialogue", 100))
        async with asyncio.timeout(5):
            while live.working_pid("dialogue") is None:
                await asyncio.sleep(0.01)  # polling for the heartbeat, with a deadline
        ask = QuestionRequest(session="s", text="Hi")
        asked = asyncio.ensure_future(
            request_watched(asker, live, "dialogue", ask, Reply, timeout=30)
        )
        done, _ = await asyncio.wait({asked}, timeout=0.3)
        assert not done  # nobody answers: it waits
        dialogue.publish(beat("dialogue", 101, "starting"))  # it died and came back
        with pytest.raises(AnswererLost, match="restarted .pid 100 is now pid 101."):
            await asyncio.wait_for(asked, 5)
        feeder.cancel()

    with_buses(config_folder.endpoints, ["asker", "dialogue"], body)
