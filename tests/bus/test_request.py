"""One correlation rule: an answer names the id of the request it answers in ``reply_to``,
and ``Bus.request`` takes the answer by that id alone."""

from __future__ import annotations

import asyncio

import zmq

from bus.client import Bus
from bus.messages import ToolRequest, ToolResult
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process


def test_each_request_gets_its_own_answer_however_they_are_ordered(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(caller: Bus, tools: Bus) -> None:
        tools.subscribe(ToolRequest.TOPIC)
        await tools.wait_path(caller)

        async def answer_in_reverse() -> None:
            first, second = await tools.recv(timeout=5), await tools.recv(timeout=5)
            assert isinstance(first, ToolRequest) and isinstance(second, ToolRequest)
            # An answer to nobody's request first: no caller may take it.
            tools.publish(ToolResult(reply_to="someone-else", name="a", content="stray"))
            for call in (second, first):
                tools.publish(ToolResult(reply_to=call.id, name=call.name, content=call.name))

        answering = asyncio.ensure_future(answer_in_reverse())
        a, b = await asyncio.gather(
            caller.request(ToolRequest(name="a", arguments="{}"), ToolResult, timeout=5),
            caller.request(ToolRequest(name="b", arguments="{}"), ToolResult, timeout=5),
        )
        await answering
        assert (a.content, b.content) == ("a", "b")

    with_buses(config_folder.endpoints, ["caller", "tools"], body)


def test_a_repeated_request_keeps_its_id_so_its_answer_still_matches(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(caller: Bus, tools: Bus) -> None:
        tools.subscribe(ToolRequest.TOPIC)
        await tools.wait_path(caller)
        call = ToolRequest(name="now", arguments="{}")

        async def answer_the_second_copy() -> None:
            await tools.recv(timeout=5)  # the first copy is lost, say
            again = await tools.recv(timeout=5)
            assert again is not None and again.id == call.id
            tools.publish(ToolResult(reply_to=again.id, name="now", content="noon"))

        answering = asyncio.ensure_future(answer_the_second_copy())
        caller.publish(call)
        result = await caller.request(call, ToolResult, timeout=5)
        await answering
        assert result.reply_to == call.id and result.content == "noon"

    with_buses(config_folder.endpoints, ["caller", "tools"], body)


def test_every_publisher_is_asked_for_every_topic_so_a_subscription_at_the_broker_is_enough(
    broker: Process, config_folder: ConfigFolder
) -> None:
    """A publisher hears from the broker one subscription to everything: the broker filters,
    so a subscription that reached it (``wait_connected``) holds for every sender at once.
    Before, each publisher filtered by the subscriptions relayed to it, and a reply could be
    dropped by an answerer that had not received its caller's new subscription yet."""
    ctx = zmq.Context.instance()
    publisher = ctx.socket(zmq.XPUB)  # a publisher that shows what it is asked for
    publisher.setsockopt(zmq.LINGER, 0)
    try:
        publisher.connect(config_folder.endpoints.pub)
        assert publisher.poll(10_000), "the broker asked for nothing"
        assert publisher.recv() == b"\x01"
    finally:
        publisher.close()
