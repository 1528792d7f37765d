"""Common requests answered without the LLM: what answered, in which language, and that the
LLM is asked for exactly the rest."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from bus.endpoints import Endpoints
from bus.messages import ActionRequest, SpeakRequest, Spoken, TraceMark
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.helpers.ports import free_port
from tests.helpers.tool_executor import tool
from tests.services.dialogue.harness import Harness

CLOCK = re.compile(r"\d{1,2}[:時]\s?\d{1,2}")
WEATHER = tool("weather", "Current weather.", {"place": "string", "when": "string"})


def run(
    endpoints: Endpoints,
    llm_url: str,
    body: Callable[[Harness], Awaitable[None]],
    mode: str = "prefer",
    **kw: Any,
) -> None:
    async def main() -> None:
        async with Harness(endpoints, llm_url, intents=mode, **kw) as harness:
            await body(harness)

    asyncio.run(main())


def intent_of(record: Any) -> str:
    (mark,) = [m for m in record.of(TraceMark) if m.stage == "intent"]
    return str(mark.detail)


def test_a_matched_request_makes_no_llm_request(module_broker: Endpoints, llm: ScriptedLLM):
    async def body(h: Harness) -> None:
        record = await h.ask("what time is it")
        assert CLOCK.search(record.reply.text), record.reply.text
        assert intent_of(record) == "HassGetCurrentTime"
        assert record.reply.error is None

    run(module_broker, llm.url, body)
    assert llm.requests == []


def test_an_unmatched_request_makes_exactly_one(module_broker: Endpoints, llm: ScriptedLLM):
    llm.script(c.text("Why did the chicken cross the road?"))

    async def body(h: Harness) -> None:
        record = await h.ask("tell me a joke")
        assert record.reply.text == "Why did the chicken cross the road?"
        assert not [m for m in record.of(TraceMark) if m.stage == "intent"]
        # the local answer before is in the history the LLM sees
        await h.ask("what time is it", session="s2")
        await h.ask("tell me a joke", session="s2")

    llm.script(c.text("Why did the chicken cross the road?"), c.text("Another one."))
    run(module_broker, llm.url, body)
    assert len(llm.requests) == 2
    roles = [(m["role"], m["content"]) for m in llm.requests[1]["messages"][1:3]]
    assert roles[0] == ("user", "what time is it") and roles[1][0] == "assistant"
    assert CLOCK.search(roles[1][1])


def test_with_no_llm_the_time_in_each_language(module_broker: Endpoints):
    async def body(h: Harness) -> None:
        english = await h.ask("what time is it?")
        italian = await h.ask("che ore sono?")
        japanese = await h.ask("今何時ですか")
        assert CLOCK.search(english.reply.text) and re.search(r"[AP]M", english.reply.text)
        assert italian.reply.text.startswith("Sono le "), italian.reply.text
        # Home Assistant's Japanese template leaves the minutes out on the hour: 午前8時です
        assert re.search(r"\d+時(\d+分)?です$", japanese.reply.text), japanese.reply.text
        other = await h.ask("che cosa è la fotosintesi?", lang="it")
        assert intent_of(other) == "none"
        assert other.reply.text.startswith("Non posso rispondere"), other.reply.text
        assert other.reply.text.endswith("impostare dei timer."), other.reply.text

    run(module_broker, "", body)


def test_with_its_server_down_prefer_still_answers_and_says_what_it_can(
    module_broker: Endpoints,
) -> None:
    port = free_port()  # nothing listens there

    async def body(h: Harness) -> None:
        now = await h.ask("what time is it")
        assert intent_of(now) == "HassGetCurrentTime" and CLOCK.search(now.reply.text)
        await until(lambda: h.service.reachability.reachable is False, what="found down")
        joke = await h.ask("tell me a joke")
        assert joke.reply.error == "llm-unavailable"
        assert f"port {port}" in joke.reply.text  # where it looked, said aloud
        assert joke.reply.text.endswith("change the volume, and set timers."), joke.reply.text
        other = await h.ask("che cosa è la fotosintesi?", lang="it")
        assert f"porta {port}" in other.reply.text
        assert other.reply.text.endswith("impostare dei timer."), other.reply.text

    run(module_broker, f"http://127.0.0.1:{port}/v1", body)


def test_only_never_asks_the_llm(module_broker: Endpoints, llm: ScriptedLLM):
    async def body(h: Harness) -> None:
        record = await h.ask("tell me a joke")
        assert record.reply.text.startswith("I can't answer that without a language model")

    run(module_broker, llm.url, body, mode="only")
    assert llm.requests == []


def test_off_asks_the_llm_everything(module_broker: Endpoints, llm: ScriptedLLM):
    llm.script(c.text("It is noon."))

    async def body(h: Harness) -> None:
        assert (await h.ask("what time is it")).reply.text == "It is noon."

    run(module_broker, llm.url, body, mode="off")
    assert len(llm.requests) == 1


def test_volume_up_and_down_by_one_step(module_broker: Endpoints, llm: ScriptedLLM):
    async def body(h: Harness) -> None:
        h.audio_output_alive()
        for text, lang, direction, said in [
            ("turn up the volume", "en", "up", "Volume set"),
            ("turn the volume down", "en", "down", "Volume set"),
            ("alza il volume", "it", "up", "Volume impostato"),
            ("abbassa il volume", "it", "down", "Volume impostato"),
            ("音量を上げて", "ja", "up", "音量を上げました。"),
        ]:
            record = await h.voice(text, lang=lang)
            (control,) = record.of(ActionRequest)
            assert control.actions == [{"type": "adjust_volume", "direction": direction}]
            assert control.lang == lang
            assert record.spoken == [said]

    run(module_broker, llm.url, body)
    assert llm.requests == []


def test_a_tool_file_answers_its_intent_with_the_place(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    weather = {**WEATHER, "intent": "HassGetWeather", "slots": {"place": "place"}}

    async def body(h: Harness) -> None:
        record = await h.ask("che tempo fa a Roma")
        assert record.reply.text == "Sunny, 20 degrees."
        assert intent_of(record) == "HassGetWeather"
        (call,) = h.executor.calls
        assert call.name == "weather"
        assert json.loads(call.arguments) == {"place": "Roma", "when": ""}

    run(module_broker, llm.url, body, tools=[weather], results={"weather": "Sunny, 20 degrees."})
    assert llm.requests == []


def test_a_timer_rings_and_is_announced_in_its_language(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    async def body(h: Harness) -> None:
        h.audio_output_alive()
        record = await h.ask("imposta un timer di 1 secondo")
        assert intent_of(record) == "HassStartTimer"
        assert record.reply.text == "Timer avviato"
        left = await h.ask("quanto manca")
        assert left.reply.text.endswith("rimanenti.") or "Nessun" in left.reply.text
        ring = await h.next(SpeakRequest, lambda s: s.kind == "announce")
        assert ring.text == "Il timer di 1 secondo è finito." and ring.lang == "it"
        h.client.publish(Spoken(text=ring.text, lang="it", turn=ring.turn))
        assert (await h.ask("how much time is left")).reply.text == "There is no timer."

    run(module_broker, llm.url, body)
    assert llm.requests == []
