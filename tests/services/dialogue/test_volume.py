"""adjust_volume: offered for voice turns, a control action, never run."""

from __future__ import annotations

from bus.endpoints import Endpoints
from bus.messages import ActionRequest, SpeakRequest
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import NOW, Harness, run, tool_messages


def offered(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def test_volume_up_on_a_local_voice_turn(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(c.tool_calls([c.call("adjust_volume", direction="up")]), c.text("Louder now."))

    async def body(h: Harness) -> None:
        h.audio_output_alive()
        record = await h.voice("もっと大きく", lang="ja")
        (control,) = record.of(ActionRequest)
        assert control.actions == [{"type": "adjust_volume", "direction": "up"}]
        assert control.lang == "ja"
        first_say = next(i for i, m in enumerate(record.messages) if isinstance(m, SpeakRequest))
        assert record.messages.index(control) < first_say, "the control comes before the answer"
        assert record.reply.control == [{"type": "adjust_volume", "direction": "up"}]
        assert record.spoken == ["Louder now."]
        assert h.executor.calls == []  # a client action: nothing runs

    run(module_broker, llm, body, tools=[NOW])
    first, second = llm.requests
    assert offered(first) == ["now", "adjust_volume"]
    volume = first["tools"][1]["function"]
    assert volume["parameters"]["properties"]["direction"]["enum"] == ["up", "down"]
    assert "うるさいから下げて" in volume["description"] and "louder" in volume["description"]
    (result,) = tool_messages(second)
    assert result["content"].startswith("ok:")


def test_volume_down_with_an_empty_answer_for_a_remote_voice_client(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("adjust_volume", direction="down")]), c.text(""))

    async def body(h: Harness) -> None:
        record = await h.ask("うるさいから下げて", client_type="voice")
        assert record.reply.control == [{"type": "adjust_volume", "direction": "down"}]
        assert record.reply.text == ""
        assert record.reply.error is None
        assert record.of(ActionRequest) == [] and record.says == []  # remote: the client applies it

    run(module_broker, llm, body)
    assert offered(llm.requests[0]) == ["adjust_volume"]


def test_invalid_direction_is_an_error_result_not_a_control(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.tool_calls([c.call("adjust_volume", direction="sideways")]),
        c.tool_calls([("adjust_volume", "[1]")]),
        c.text("Sorry."),
    )

    async def body(h: Harness) -> None:
        h.audio_output_alive()
        record = await h.voice("Make it weird")
        assert record.reply.control == [] and record.of(ActionRequest) == []

    run(module_broker, llm, body)
    results = tool_messages(llm.requests[2])
    assert results[0]["content"] == 'error: direction must be "up" or "down", got \'sideways\''
    assert results[1]["content"] == "error: arguments must be a JSON object, got list"


def test_not_offered_without_an_audio_output_or_to_text_clients(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        c.text("No volume."),
        c.text("No volume."),
        c.tool_calls([c.call("adjust_volume", direction="up")]),
        c.text("Can't."),
    )

    async def body(h: Harness) -> None:
        await h.voice("Louder")  # no audio output's heartbeat on the bus
        await h.ask("Louder", client_type="text")
        record = await h.ask("Louder", client_type="text")
        assert record.reply.control == []

    run(module_broker, llm, body, tools=[NOW])
    assert all(offered(r) == ["now"] for r in llm.requests)
    (result,) = tool_messages(llm.requests[3])
    assert result["content"] == "error: unknown tool 'adjust_volume' (available: now)"


def test_the_history_keeps_the_phrase_said_at_the_limit_not_the_models_words(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    limit = "これ以上大きくできません"
    llm.script(c.tool_calls([c.call("adjust_volume", direction="up")]), c.text("大きくしました。"),
               c.text("はい。"))

    async def body(h: Harness) -> None:
        h.audio_output_alive(said_instead=limit)  # the volume is at its maximum
        record = await h.voice("もっと大きく", lang="ja")
        assert record.reply.text == limit
        h.audio_output_alive()
        await h.voice("ありがとう", lang="ja")

    run(module_broker, llm, body)
    assert llm.requests[-1]["messages"][1:] == [
        {"role": "user", "content": "もっと大きく"},
        {"role": "assistant", "content": limit},
        {"role": "user", "content": "ありがとう"},
    ]


def test_a_turn_that_said_nothing_leaves_no_empty_assistant_message(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("adjust_volume", direction="down")]), c.text(""),
               c.text("Quieter it is."))

    async def body(h: Harness) -> None:
        h.audio_output_alive()  # the volume went down: nothing to say instead
        record = await h.voice("Quieter")
        assert record.reply.text == "" and record.spoken == []
        await h.voice("Thanks")

    run(module_broker, llm, body)
    assert llm.requests[-1]["messages"][1:] == [{"role": "user", "content": "Thanks"}]
