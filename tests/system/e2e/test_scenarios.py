"""The live run of the tools as scenarios over the bus: the time, the calendar, the weather at home
and elsewhere, a web search, and a plain question that must call nothing.

Text turns (``QuestionRequest``) on the whole running assistant; the scripted LLM plays the
model's choices, the real example tools run in the tools service against a test
vdir and the local OpenWeatherMap and SearXNG stand-ins. Each answer is built
from the tool message the model received, and must carry what the tool printed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bus.messages import Reply, ToolRequest, ToolResult
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Recorder
from tests.helpers.hearing import says_time
from tests.helpers.searxng import result
from tests.system.e2e.world import TOOLS, World, clock, script_tool_turn


def flat(text: str) -> str:
    return " ".join(text.split())


async def tool_scenario(
    world: World, question: str, tool: str, **arguments: Any
) -> tuple[Reply, ToolResult]:
    """Ask ``question``; the model calls ``tool(**arguments)`` and answers with its output."""
    script_tool_turn(world, tool, "Here is what I found: {}", **arguments)
    async with Recorder(world.assistant) as rec:
        reply = await rec.ask(question, session=f"live-{tool}")
        turn = reply.reply_to
        (call,) = [m for m in rec.of(ToolRequest) if m.turn == turn]
        (done,) = [m for m in rec.of(ToolResult) if m.turn == turn]
    assert reply.error is None, reply
    assert (call.name, done.name, done.ok) == (tool, tool, True), done
    sent = world.assistant.llm.requests
    assert len(sent) == 2
    tool_message = sent[1]["messages"][-1]
    assert (tool_message["role"], tool_message["content"]) == ("tool", done.content)
    assert flat(done.content) in flat(reply.text)
    return reply, done


def test_the_time(world: World) -> None:
    asked = clock()
    _, done = asyncio.run(tool_scenario(world, "What time is it?", "now"))
    assert says_time(done.content, asked, clock()), done.content
    assert asked.strftime("%A") in done.content or clock().strftime("%A") in done.content


def test_a_calendar_question(world: World) -> None:
    today = world.today.isoformat()
    _, done = asyncio.run(
        tool_scenario(world, "What's on my calendar today?", "calendar", start=today, days=1)
    )
    assert done.content == f"{today} 15:30 Dentist"


def test_the_weather_at_home(world: World) -> None:
    world.owm.requests.clear()
    _, done = asyncio.run(
        tool_scenario(world, "What's the weather like?", "weather", place="", when="now")
    )
    assert done.content == "Rome: light rain, 19°C (min 17, max 21), wind 3.1 m/s"
    ((path, query),) = world.owm.requests
    assert (path, query["q"], query["units"]) == ("/data/2.5/weather", "Rome,IT", "metric")


def test_the_weather_somewhere_else_tomorrow(world: World) -> None:
    world.owm.requests.clear()
    _, done = asyncio.run(
        tool_scenario(
            world, "What will the weather be in Tokyo tomorrow?", "weather",
            place="Tokyo", when="tomorrow",
        )
    )
    assert done.content.startswith("Tokyo tomorrow: "), done.content
    assert "°C, wind up to " in done.content
    assert [(p, q["q"]) for p, q in world.owm.requests] == [("/data/2.5/forecast", "Tokyo")]


def test_a_web_search(world: World) -> None:
    query = "who wrote the hobbit"
    world.searxng.results[query] = [
        result("The Hobbit - Wikipedia", "The Hobbit is a novel by J. R. R. Tolkien.",
               "https://en.wikipedia.org/wiki/The_Hobbit"),
        result("Tolkien Gateway", "J.R.R. Tolkien wrote The Hobbit in 1937.",
               "https://tolkiengateway.net/wiki/The_Hobbit"),
    ]
    _, done = asyncio.run(tool_scenario(world, "Who wrote The Hobbit?", "search", query=query))
    assert done.content.splitlines() == [
        "The Hobbit - Wikipedia: The Hobbit is a novel by J. R. R. Tolkien.",
        "Tolkien Gateway: J.R.R. Tolkien wrote The Hobbit in 1937.",
    ]


def test_a_plain_question_reaches_no_tool(world: World) -> None:
    llm = world.assistant.llm
    llm.script(c.text("The Moon is about 384,000 kilometres away."))

    async def scenario() -> None:
        async with Recorder(world.assistant) as rec:
            reply = await rec.ask("How far away is the Moon?", session="live-plain")
            await rec.drain(1.0)  # a tool run would show up here
            assert reply.text == "The Moon is about 384,000 kilometres away."
            assert reply.error is None
            assert not rec.of(ToolRequest) and not rec.of(ToolResult)

    asyncio.run(scenario())
    # The model was offered every tool and answered in one round, with nothing from a tool.
    (request,) = llm.requests
    offered = {t["function"]["name"] for t in request["tools"]}
    assert offered == set(TOOLS)
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
