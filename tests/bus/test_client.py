"""The client's receive path on both event loops it runs on: asyncio's (the CLI) and
uvloop (the services)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from bus import eventloop
from bus.client import DRAIN_BATCH, Bus
from bus.messages import SpeakRequest
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process

LOOPS = {"asyncio": asyncio.new_event_loop, "uvloop": eventloop.new_loop}


@pytest.mark.parametrize("loop", LOOPS)
def test_a_burst_arrives_whole_and_in_order(
    broker: Process, config_folder: ConfigFolder, loop: str
) -> None:
    # More than one drain batch, waiting at once: the first goes to the reader at the
    # wake-up, the rest through the drains after it; none lost, none out of order.
    count = 2 * DRAIN_BATCH + 7

    async def body(sender: Bus, receiver: Bus) -> list[int]:
        receiver.subscribe("tts.say")
        await receiver.wait_path(sender)
        for seq in range(count):
            sender.publish(SpeakRequest(text="x", seq=seq))
        time.sleep(0.3)  # the loop held: the whole burst waits in the queue at one wake-up
        got = []
        while len(got) < count and (msg := await receiver.recv(timeout=5)) is not None:
            assert isinstance(msg, SpeakRequest)
            got.append(msg.seq)
        return got

    factory: Callable[[], asyncio.AbstractEventLoop] = LOOPS[loop]
    seqs = with_buses(config_folder.endpoints, ["s", "r"], body, loop_factory=factory)
    assert seqs == list(range(count))


@pytest.mark.parametrize("loop", LOOPS)
def test_waiting_tasks_take_turns_with_the_message_that_woke_them(
    broker: Process, config_folder: ConfigFolder, loop: str
) -> None:
    # Four messages waiting at one wake-up: the task woken by the first sees it before
    # the client reads the rest (the hand-over comes before draining).
    async def body(sender: Bus, receiver: Bus) -> list[str]:
        receiver.subscribe("tts.say")
        await receiver.wait_path(sender)
        seen: list[str] = []

        async def reader() -> None:
            while len(seen) < 4:
                msg = await receiver.recv(timeout=5)
                assert isinstance(msg, SpeakRequest)
                seen.append(f"{msg.text}, inbox {len(receiver._inbox)}")

        task = asyncio.ensure_future(reader())
        await asyncio.sleep(0)
        for text in ("a", "b", "c", "d"):
            sender.publish(SpeakRequest(text=text))
        time.sleep(0.2)  # the loop held: all four reach the receiver's queue before it looks
        await asyncio.wait_for(task, 10)
        return seen

    seen = with_buses(config_folder.endpoints, ["s", "r"], body, loop_factory=LOOPS[loop])
    assert [s.split(",")[0] for s in seen] == ["a", "b", "c", "d"]
    assert seen[0] == "a, inbox 0"
