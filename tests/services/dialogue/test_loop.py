"""The loop against a scripted OpenAI-compatible server: speech as it streams, tool rounds."""

from __future__ import annotations

import json

from bus.endpoints import Endpoints
from bus.messages import SpeakRequest
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.tool_executor import tool
from tests.services.dialogue.harness import (
    NOW,
    WEATHER,
    Harness,
    assistant_calls,
    run,
    tool_messages,
)


def test_plain_answer_is_spoken_sentence_by_sentence_while_streaming(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    gate = llm.gate("rest")
    llm.script(
        {
            "stream": c.text_items("Hello ", "there. ", "How are")
            + [{"gate": "rest"}]
            + c.text(" you? Fine, thanks.")["stream"][1:]
        }
    )

    async def body(h: Harness) -> None:
        turn = h.say("hi")
        first = await h.next(SpeakRequest, lambda s: s.turn == turn)
        assert (first.text, first.seq, first.final) == ("Hello there.", 0, False)
        assert not gate.is_set(), "the first sentence must come while the stream still runs"
        gate.set()
        record = await h.reply(turn)
        says = record.says
        assert says[0] is first
        assert [(s.text, s.seq, s.final, s.kind) for s in says] == [
            ("Hello there.", 0, False, "answer"),
            ("How are you?", 1, False, "answer"),
            ("Fine, thanks.", 2, True, "answer"),
        ]
        assert all(s.lang == "en" for s in says)
        assert record.reply.text == "Hello there. How are you? Fine, thanks."
        assert (record.reply.session, record.reply.error, record.reply.control) == (
            "local",
            None,
            [],
        )
        assert record.stages() == ["llm.request", "llm.first_token", "llm.done"]

    run(module_broker, llm, body)
    (request,) = llm.requests
    assert request["stream"] is True
    assert request["model"] == "test-model"
    assert request["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "hi"},
    ]
    assert "tools" not in request  # no catalog, no volume: nothing to offer


def test_one_tool_call_in_fragments(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(
        c.tool_calls([c.call("weather", place="Rome")], style="llama"),
        c.text("It is sunny in Rome."),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Weather in Rome?")
        assert record.spoken == ["It is sunny in Rome."]
        assert record.stages() == ["llm.request", "llm.first_token", "llm.done"] * 2
        (call,) = h.executor.calls
        assert (call.name, json.loads(call.arguments), call.turn) == (
            "weather",
            {"place": "Rome"},
            record.reply.turn,
        )

    run(module_broker, llm, body, tools=[WEATHER], results={"weather": "Rome: sunny, 24 C"})
    first, second = llm.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["weather"]
    assert first["tools"][0]["function"]["parameters"] == WEATHER["parameters"]
    assert first["parallel_tool_calls"] is True
    assert second["messages"][-2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_srv0",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"place": "Rome"}'},
            }
        ],
    }
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_srv0",
        "content": "Rome: sunny, 24 C",
    }


def test_two_parallel_calls_run_concurrently(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(
        c.tool_calls([c.call("weather", place="Oslo"), c.call("now")], style="vllm"),
        c.text("Cold, and it is noon."),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Weather in Oslo and the time?")
        assert record.reply.text == "Cold, and it is noon."
        assert {call.name for call in h.executor.calls} == {"weather", "now"}

    # The executor answers only once both calls wait: sequential calls would time out.
    run(
        module_broker,
        llm,
        body,
        tools=[WEATHER, NOW],
        barrier=2,
        results={"weather": "Oslo: -3 C", "now": "12:00"},
    )
    second = llm.requests[1]
    calls = assistant_calls(second)
    assert [(tc["id"], tc["function"]["name"]) for tc in calls] == [
        ("call_srv0", "weather"),
        ("call_srv1", "now"),
    ]
    assert calls[0]["function"]["arguments"] == '{"place": "Oslo"}'
    assert calls[1]["function"]["arguments"] == "{}"
    assert tool_messages(second) == [
        {"role": "tool", "tool_call_id": "call_srv0", "content": "Oslo: -3 C"},
        {"role": "tool", "tool_call_id": "call_srv1", "content": "12:00"},
    ]


def test_ollama_whole_calls_without_ids_and_with_the_index_bug(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.tool_calls(
            [c.call("weather", place="Rome"), c.call("now")], style="ollama-bug", ids=False
        ),
        c.text("Warm. ", "Noon.", style="ollama"),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Weather and time?")
        assert record.spoken == ["Warm.", "Noon."]
        assert sorted(call.name for call in h.executor.calls) == ["now", "weather"]

    run(module_broker, llm, body, tools=[WEATHER, NOW])
    second = llm.requests[1]
    ids = [tc["id"] for tc in assistant_calls(second)]
    assert ids == ["call_0", "call_1"]
    assert [m["tool_call_id"] for m in tool_messages(second)] == ids
    assert "null" not in json.dumps(second["messages"])


def test_missing_ids_are_synthesized_per_index(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(
        c.tool_calls([c.call("now")], style="llama", ids=False),
        c.tool_calls([c.call("weather", place="Rome")], style="ollama", ids=False),
        c.text("Done."),
    )
    run(module_broker, llm, lambda h: h.voice("Time, then weather?"), tools=[WEATHER, NOW])
    third = llm.requests[2]
    assert [tc["id"] for tc in assistant_calls(third)] == ["call_0", "call_0_2"]
    assert [m["tool_call_id"] for m in tool_messages(third)] == ["call_0", "call_0_2"]


def test_tool_rounds_exhausted_forces_a_text_answer(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.tool_calls([c.call("now")]),
        c.tool_calls([c.call("now", zone="UTC")]),
        c.text("I could not decide, sorry."),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Loop forever")
        assert record.reply.text == "I could not decide, sorry."
        assert len(h.executor.calls) == 2

    run(module_broker, llm, body, tools=[NOW], tool_rounds=2)
    assert len(llm.requests) == 3
    assert all("tools" in r for r in llm.requests[:2])
    assert "tools" not in llm.requests[2] and "parallel_tool_calls" not in llm.requests[2]
    assert len(tool_messages(llm.requests[2])) == 2


def test_calls_in_the_round_without_tools_are_ignored(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("now")]), c.tool_calls([c.call("now")], content="Noon."))

    async def body(h: Harness) -> None:
        record = await h.voice("Time?")
        assert record.reply.text == "Noon."
        assert record.says[-1].final

    run(module_broker, llm, body, tools=[NOW], tool_rounds=1)
    assert len(llm.requests) == 2


def test_arguments_that_are_not_json(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(c.tool_calls([("weather", '{"place": "Ro')]), c.text("I could not check."))

    async def body(h: Harness) -> None:
        record = await h.voice("Weather?")
        assert record.reply.text == "I could not check."
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[WEATHER])
    second = llm.requests[1]
    (result,) = tool_messages(second)
    assert result["content"].startswith("error: arguments are not valid JSON")
    assert assistant_calls(second)[0]["function"]["arguments"] == "{}"


def test_unknown_tool(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(c.tool_calls([c.call("teleport", to="Mars")]), c.text("I can't do that."))

    async def body(h: Harness) -> None:
        record = await h.voice("Beam me up")
        assert record.reply.text == "I can't do that."
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[NOW])
    (result,) = tool_messages(llm.requests[1])
    assert result["content"] == "error: unknown tool 'teleport' (available: now)"


def test_no_executor_answers_within_the_tools_timeout(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("now")]), c.text("The clock is not answering."))

    async def body(h: Harness) -> None:
        h.service.toolbox.margin = 0.2
        record = await h.voice("Time?")
        assert record.reply.text == "The clock is not answering."
        assert record.reply.error == "tools-unavailable"
        assert len(h.executor.calls) == 1

    run(module_broker, llm, body, tools=[tool("now", timeout=0.3)], results={"now": None})
    (result,) = tool_messages(llm.requests[1])
    assert result["content"] == "error: tool executor unavailable"
