"""Every failure of the LLM is spoken, published and logged; the service keeps answering."""

from __future__ import annotations

import asyncio

import pytest

from bus.endpoints import Endpoints
from bus.messages import Error, SpeakRequest
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.ports import free_port
from tests.services.dialogue.harness import Harness, TurnRecord, run


def assert_apology(record: TurnRecord, code: str, text: str) -> None:
    assert record.reply.error == code
    assert record.reply.text == text
    last = record.says[-1]
    assert (last.text, last.kind, last.final) == (text, "error", True)
    (error,) = record.of(Error)
    assert (error.service, error.code) == ("dialogue", code)


BROKEN_STREAMS = {
    "cut": [*c.text_items("Partly. ", "And then"), {"cut": True}],
    "llama error event": [
        *c.text_items("Partly. ", "And"),
        {"raw": 'error: {"code":500,"message":"context full","type":"server_error"}\n\n'},
    ],
    "error chunk": [*c.text_items("Partly. ", "And"), {"data": {"error": {"message": "boom"}}}],
    "malformed chunk": [*c.text_items("Partly. ", "And"), {"raw": "data: {not json\n\n"}],
    "no choices list": [*c.text_items("Partly. ", "And"), {"data": {"object": "x"}}],
    "ends without finishing": c.text_items("Partly. ", "And"),
}


@pytest.mark.parametrize("stream", BROKEN_STREAMS.values(), ids=list(BROKEN_STREAMS))
def test_a_stream_that_breaks_off(module_broker: Endpoints, llm: ScriptedLLM, stream: list) -> None:
    llm.script({"stream": stream}, c.text("Recovered."))

    async def body(h: Harness) -> None:
        record = await h.voice("Tell me")
        assert record.says[0].text == "Partly."  # spoken before the break
        assert "And" not in [s.text for s in record.says]  # half a sentence is dropped
        assert_apology(
            record, "llm-error", "Sorry, something went wrong with the language model's answer."
        )
        assert "llm.error" in record.stages()
        assert (await h.voice("Again")).reply.text == "Recovered."

    run(module_broker, llm, body)


def test_http_500_is_an_apology_in_the_turns_language(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.http_error(500, "boom"), c.http_error(500, "boom"), c.http_error(500, "boom"))

    async def body(h: Harness) -> None:
        assert_apology(
            await h.voice("Ciao", lang="it"),
            "llm-error",
            "Scusa, qualcosa è andato storto nella risposta del modello linguistico.",
        )
        record = await h.ask("こんにちは")  # a text turn: no language given, Japanese script
        assert record.reply.error == "llm-error"
        assert record.reply.text == "すみません、言語モデルの応答でエラーが起きました。"
        assert record.says == []  # text turns are not spoken
        record = await h.ask("Hi", lang="de")
        assert record.reply.text.startswith("Sorry")  # unknown language: English

    run(module_broker, llm, body)


def test_loading_model_503(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(c.http_error(503, "Loading model"))

    async def body(h: Harness) -> None:
        record = await h.voice("Hi")
        assert_apology(
            record,
            "llm-loading",
            "Sorry, the language model is still loading. Please ask again in a moment.",
        )

    run(module_broker, llm, body)


def test_timeout_between_chunks(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script({"stream": [*c.text_items("Slow"), {"gate": "never"}]})

    async def body(h: Harness) -> None:
        record = await h.voice("Hi")
        assert_apology(record, "llm-timeout", "Sorry, the language model took too long to answer.")

    run(module_broker, llm, body, timeout=0.5)


def test_no_server_then_a_server_appears(module_broker: Endpoints) -> None:
    port = free_port()

    async def body() -> None:
        async with Harness(module_broker, f"http://127.0.0.1:{port}/v1", model="") as h:
            record = await h.voice("Hello?")
            assert_apology(
                record,
                "llm-unavailable",
                f"Sorry, I can't reach the language model server at 127.0.0.1, port {port}. "
                "Start one there, or set llm in the config file to another address.",
            )
            assert h.service.bus.state == "degraded"
            assert str(port) in h.service.bus.detail
            with ScriptedLLM(port=port) as server:
                server.script(c.text("Here I am."))
                record = await h.voice("Hello?")
                assert (record.reply.text, record.reply.error) == ("Here I am.", None)
                assert h.service.bus.state == "ready"
                assert server.requests[0]["model"] == "scripted-model"

    asyncio.run(body())


def test_an_unusable_llm_url(module_broker: Endpoints) -> None:
    async def body() -> None:
        async with Harness(module_broker, "ftp://nowhere/v1") as h:
            record = await h.voice("Hello?")
            assert record.reply.error == "llm-unavailable"
            assert isinstance(record.says[-1], SpeakRequest) and record.says[-1].final

    asyncio.run(body())
