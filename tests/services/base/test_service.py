"""The services' shared shape: one table gives the subscriptions and routes every message."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.message import Message
from bus.messages import Heartbeat, ToolCatalog, ToolCatalogRequest, ToolResult, Transcript
from services.base.service import Service, Tasks
from services.brain.service import BrainBridge
from services.dialogue.service import DialogueService
from services.mic.service import Listener
from services.stt.service import SpeechToText
from services.tools.service import ToolService
from services.tts.service import Speaker
from services.watchdog.service import Watchdog
from tests.helpers.busrun import with_buses
from tests.helpers.polling import until

SERVICES = [
    BrainBridge, DialogueService, Listener, Speaker, SpeechToText, ToolService, Watchdog
]


class Catalogs(Service):
    """Handles tool catalogs and transcripts; nothing else."""

    def __init__(self, bus: Bus) -> None:
        super().__init__(bus)
        self.seen: asyncio.Queue[Message] = asyncio.Queue()

    def on_catalog(self, msg: ToolCatalog) -> None:
        self.seen.put_nowait(msg)

    def on_transcript(self, msg: Transcript) -> None:
        self.seen.put_nowait(msg)

    HANDLERS = {ToolCatalog: on_catalog, Transcript: on_transcript}


@pytest.mark.parametrize("service", SERVICES, ids=lambda s: s.__name__)
def test_every_service_subscribes_exactly_to_the_types_it_handles(service: type[Service]) -> None:
    assert service.HANDLERS, "a service with an empty table would hear nothing"
    assert set(service.topics()) == {kind.TOPIC for kind in (*service.HANDLERS, *service.AWAITED)}
    for kind, handler in service.HANDLERS.items():
        assert issubclass(kind, Message) and callable(handler)
    assert not set(service.HANDLERS) & service.AWAITED, "a message reaches a service one way"


def test_a_type_missing_from_the_table_is_not_subscribed() -> None:
    assert Catalogs.topics() == (ToolCatalog.TOPIC, Transcript.TOPIC)
    assert Heartbeat.TOPIC not in Catalogs.topics()


def test_messages_reach_their_handler_and_an_unhandled_one_is_dropped(
    module_broker: Endpoints, caplog: pytest.LogCaptureFixture
) -> None:
    async def body(bus: Bus, sender: Bus) -> list[Message]:
        service = Catalogs(bus)
        service.subscribe(bus)
        await bus.wait_path(sender)
        serving = asyncio.ensure_future(service.serve())
        # tools.catalog.request arrives under the tools.catalog prefix: not in the table.
        sender.publish(ToolCatalogRequest())
        sender.publish(ToolCatalog(tools=[]))
        sender.publish(Transcript(text="hello", lang="en", duration=1.0, compute=0.1,
                                  speech_end=0.0, turn="t1"))
        seen = [await asyncio.wait_for(service.seen.get(), 10) for _ in range(2)]
        assert not serving.done(), "an unhandled message must not end the loop"
        serving.cancel()
        return seen

    with caplog.at_level(logging.DEBUG, logger="services.base.service"):
        seen = with_buses(module_broker, ["catalogs", "sender"], body)
    assert [type(m) for m in seen] == [ToolCatalog, Transcript]
    assert any(r.getMessage().endswith("no handler for tools.catalog.request, dropped")
               for r in caplog.records)


def test_tasks_are_kept_until_done_and_cancelled_on_close() -> None:
    async def body() -> tuple[int, int, bool]:
        tasks = Tasks()
        gate = asyncio.Event()
        quick = tasks.spawn(gate.wait())
        slow = tasks.spawn(asyncio.sleep(3600))
        gate.set()
        await quick
        left = len(tasks)
        await tasks.close(timeout=5)
        return left, len(tasks), slow.cancelled()

    left, after, cancelled = asyncio.run(body())
    assert left == 1, "a finished task is forgotten"
    assert after == 0 and cancelled


class Awaits(Catalogs):
    """Catalogs, and tool results that only a waiting request takes."""

    AWAITED = frozenset({ToolResult})


def test_an_awaited_answer_goes_to_its_waiter_and_a_late_one_is_dropped_without_a_handler(
    module_broker: Endpoints, caplog: pytest.LogCaptureFixture
) -> None:
    assert Awaits.topics() == (ToolCatalog.TOPIC, Transcript.TOPIC, ToolResult.TOPIC)

    async def body(bus: Bus, sender: Bus) -> tuple[ToolResult, list[Message]]:
        service = Awaits(bus)
        service.subscribe(bus)
        await bus.wait_path(sender)
        waiting = asyncio.ensure_future(
            bus.wait_for(ToolResult, lambda r: r.reply_to == "mine", timeout=10)
        )
        serving = asyncio.ensure_future(service.serve())
        # The waiter is registered when its task first runs: let it run before the answers
        # go out, or a read of the socket already queued in the loop may take them first
        # (failed 1 run in 8 alone: both answers dropped, the waiter never served).
        await asyncio.sleep(0)
        sender.publish(ToolResult(name="now", content="noon", reply_to="late"))
        sender.publish(ToolResult(name="now", content="noon", reply_to="mine"))
        sender.publish(ToolCatalog(tools=[]))
        result = await waiting
        seen = [await asyncio.wait_for(service.seen.get(), 10)]
        assert not serving.done()
        serving.cancel()
        return result, seen

    with caplog.at_level(logging.DEBUG, logger="services.base.service"):
        result, seen = with_buses(module_broker, ["awaits", "sender"], body)
    assert result.reply_to == "mine"
    assert [type(m) for m in seen] == [ToolCatalog], "no handler ran for the late result"
    assert any("tools.result late came after its request stopped waiting" in r.getMessage()
               for r in caplog.records)


class Steps(Catalogs):
    """Records what the base's run does, in order."""

    def __init__(self, bus: Bus) -> None:
        super().__init__(bus)
        self.steps: list[str] = []

    async def on_start(self) -> None:
        self.steps.append(f"start, {self.bus.state}")
        self.tasks.spawn(asyncio.sleep(3600))

    def report_ready(self) -> None:
        super().report_ready()
        self.steps.append(f"ready, {self.bus.state}")

    async def on_stop(self) -> None:
        self.steps.append(f"stop, {len(self.tasks)} task")


def test_one_run_subscribes_starts_reports_ready_serves_and_stops(
    module_broker: Endpoints,
) -> None:
    async def body(bus: Bus, sender: Bus) -> Steps:
        service = Steps(bus)
        running = asyncio.ensure_future(service.run())
        await sender.wait_path(bus)
        await until(lambda: bus.state == "ready", "the service reports ready")
        sender.publish(ToolCatalog(tools=[]))  # subscribed by run(): it reaches the handler
        assert isinstance(await asyncio.wait_for(service.seen.get(), 10), ToolCatalog)
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        return service

    service = with_buses(module_broker, ["steps", "sender"], body)
    assert service.steps == ["start, starting", "ready, ready", "stop, 1 task"]
    assert len(service.tasks) == 0, "the tasks are closed after on_stop"
