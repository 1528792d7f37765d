"""The loop's robustness: Gemma's quirks, text around calls, repeated asks, model discovery."""

from __future__ import annotations

from bus.endpoints import Endpoints
from bus.message import new_id
from bus.messages import QuestionRequest, ToolRequest
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import NOW, WEATHER, Harness, assistant_calls, run, until


def test_gemma_text_tool_call_and_repeated_call(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    fenced = '```json\n{"name": "weather", "arguments": {"place": "Rome"}}\n```'
    llm.script(
        c.text(fenced[:9], fenced[9:30], fenced[30:]),
        c.tool_calls([c.call("now"), c.call("now")]),
        c.text("Sunny, at noon."),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Weather and time?")
        assert record.spoken == ["Sunny, at noon."], "the call written as text is not spoken"
        assert [call.name for call in h.executor.calls] == ["weather", "now"]

    run(module_broker, llm, body, tools=[WEATHER, NOW])
    second, third = llm.requests[1:]
    assert assistant_calls(second)[0]["function"] == {
        "name": "weather",
        "arguments": '{"place": "Rome"}',
    }
    assert second["messages"][-2]["content"] == ""
    assert len(assistant_calls(third)) - len(assistant_calls(second)) == 1  # the repeat dropped


def test_text_before_a_call_is_spoken_and_kept(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(
        c.tool_calls([c.call("now")], content="Let me look. "),
        c.text("It is noon."),
    )

    async def body(h: Harness) -> None:
        record = await h.voice("Time?")
        assert record.spoken == ["Let me look.", "It is noon."]
        assert record.reply.text == "Let me look. It is noon."

    run(module_broker, llm, body, tools=[NOW])
    assert llm.requests[1]["messages"][-2]["content"] == "Let me look."


def test_text_turns_are_not_spoken_and_repeated_asks_run_once(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Forty-two."))

    async def body(h: Harness) -> None:
        record = await h.ask("The answer?", session="cli")
        assert record.reply.text == "Forty-two."
        assert record.reply.session == "cli"
        assert record.says == []
        h.client.publish(
            QuestionRequest(id=record.reply.reply_to or "", session="cli", text="The answer?")
        )
        again = await h.reply(record.reply.turn or "")
        assert again.reply.text == "Forty-two."

    run(module_broker, llm, body)
    assert len(llm.requests) == 1


def test_model_name_comes_from_the_server_when_not_configured(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Hi."))
    run(module_broker, llm, lambda h: h.ask("Hello"), model="")
    assert llm.requests[0]["model"] == "scripted-model"


def test_tool_results_go_to_the_executor_of_this_turn_only(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("now")]), c.text("Noon."))

    async def body(h: Harness) -> None:
        await h.voice("Time?")
        (call,) = h.executor.calls
        assert isinstance(call, ToolRequest)
        # A bus-wide unique id, not the model's per-response "call_0".
        assert call.id.startswith(new_id()[:16]) and not call.id.startswith("call_")
        await until(lambda: not h.service.requests.running())

    run(module_broker, llm, body, tools=[NOW])
