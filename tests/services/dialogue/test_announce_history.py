"""Announcements (once per question, in the turn's language) and the history window."""

from __future__ import annotations

from bus.endpoints import Endpoints
from bus.messages import ClearHistoryRequest, HistoryCleared, ToolRequest
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.tool_executor import tool
from tests.services.dialogue.harness import NOW, Harness, run

WEATHER = tool(
    "weather",
    params={"place": "string"},
    announce={
        "it": ["Controllo il meteo."],
        "en": ["Checking the weather.", "Let me look outside."],
    },
)
SEARCH = tool("search", params={"query": "string"}, announce={"en": ["Searching."]})


def test_one_announcement_per_question_in_its_language(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.tool_calls([c.call("now"), c.call("weather", place="Roma")]),
        c.tool_calls([c.call("weather", place="Milano")]),
        c.text("Sole a Roma e a Milano."),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Che tempo fa?", lang="it")
        announces = [s for s in record.says if s.kind == "announce"]
        assert [(s.text, s.lang, s.seq) for s in announces] == [("Controllo il meteo.", "it", 0)]
        # spoken before the tools ran: it precedes the first call on the bus
        order = [m for m in record.messages if m.TOPIC in ("tts.say", "tools.call")]
        assert order[0] is announces[0] and isinstance(order[1], ToolRequest)
        assert record.spoken == ["Sole a Roma e a Milano."]
        assert "Controllo" not in record.reply.text
        llm.script(c.text("Prego."))
        await h.voice("Grazie", lang="it")

    async def with_calls(h: Harness) -> None:
        h.client.subscribe("tools.call")
        await h.client.wait_path(h.service.bus)
        await body(h)

    run(module_broker, llm, with_calls, tools=[NOW, WEATHER])
    history = llm.requests[-1]["messages"]
    assert history[1:] == [
        {"role": "user", "content": "Che tempo fa?"},
        {"role": "assistant", "content": "Sole a Roma e a Milano."},
        {"role": "user", "content": "Grazie"},
    ], "no announcement, no tool calls or results in the history"


def test_silent_tools_and_languages_without_phrases(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.tool_calls([c.call("now")]),
        c.text("Noon."),
        c.tool_calls([c.call("weather", place="Tokyo")]),
        c.text("晴れです。"),
        c.tool_calls([c.call("search", query="x"), c.call("weather", place="Oslo")]),
        c.text("Found it."),
    )

    async def body(h: Harness) -> None:
        assert all(s.kind == "answer" for s in (await h.voice("Time?")).says)
        assert all(s.kind == "answer" for s in (await h.voice("天気は?", lang="ja")).says)
        record = await h.voice("Search and weather")
        assert [s.text for s in record.says if s.kind == "announce"] == ["Searching."]
        llm.script(c.tool_calls([c.call("weather", place="Oslo")]), c.text("Cold."))
        text_turn = await h.ask("Weather?")
        assert text_turn.says == []  # nothing is spoken for a text turn

    run(module_broker, llm, body, tools=[NOW, WEATHER, SEARCH])


def test_history_window_keeps_whole_exchanges_per_session(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.text("One."),
        c.tool_calls([c.call("now")]),
        c.text("Two."),
        c.text("Three."),
        c.text("Other session."),
        c.text("Four."),
    )

    async def body(h: Harness) -> None:
        for question in ("q1", "q2", "q3"):
            await h.voice(question)
        await h.ask("elsewhere", session="web")
        await h.voice("q4")

    run(module_broker, llm, body, tools=[NOW], history=5)  # 5 messages: 2 whole exchanges
    assert llm.requests[4]["messages"][1:] == [{"role": "user", "content": "elsewhere"}]
    assert llm.requests[5]["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "Two."},
        {"role": "user", "content": "q3"},
        {"role": "assistant", "content": "Three."},
        {"role": "user", "content": "q4"},
    ]


def test_failed_turns_stay_out_of_history_and_clear_history(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.text("Hi Ann."),
        c.http_error(500, "boom"),
        c.text("Your name is Ann."),
        c.text("I don't know."),
    )

    async def body(h: Harness) -> None:
        await h.ask("I am Ann", session="a")
        await h.ask("Broken", session="a")
        await h.ask("Who am I?", session="a")
        h.client.publish(ClearHistoryRequest(id="r1", session="a"))
        cleared = await h.next(HistoryCleared, lambda m: m.reply_to == "r1")
        assert cleared.session == "a"
        await h.ask("Who am I?", session="a")

    run(module_broker, llm, body)
    assert [m["content"] for m in llm.requests[2]["messages"][1:]] == [
        "I am Ann",
        "Hi Ann.",
        "Who am I?",
    ]
    assert llm.requests[3]["messages"][1:] == [{"role": "user", "content": "Who am I?"}]
