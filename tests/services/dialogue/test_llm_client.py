"""The LLM client alone, against the scripted server: the shapes of each server, the errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.dialogue.llm import Delta, LLMClient, LLMError
from services.dialogue.timing import Waits
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM


def collect(url: str, model: str = "m", tools: list[dict[str, Any]] | None = None) -> list[Delta]:
    async def main() -> list[Delta]:
        client = LLMClient(url, model=model, timeout=5)
        try:
            return [
                d async for d in client.stream([{"role": "user", "content": "hi"}], tools, Waits())
            ]
        finally:
            await client.aclose()

    return asyncio.run(main())


def text_of(deltas: list[Delta]) -> str:
    return "".join(d.content for d in deltas)


def test_comments_events_and_usage_chunks_are_skipped(llm: ScriptedLLM) -> None:
    items = c.text("Hi", " there.")["stream"]
    llm.script({"stream": [{"raw": ": keep-alive\n\n"}, {"raw": "event: message\n"}, *items]})
    deltas = collect(llm.url)
    assert text_of(deltas) == "Hi there."
    assert deltas[-1].finish_reason == "stop"
    assert "tools" not in llm.requests[0] and llm.requests[0]["model"] == "m"


def test_finish_reason_without_done_is_a_complete_answer(llm: ScriptedLLM) -> None:
    llm.script(c.text("Ciao.", style="ollama", done=False))
    assert text_of(collect(llm.url)) == "Ciao."


def test_a_server_that_ignores_stream(llm: ScriptedLLM) -> None:
    message = {"role": "assistant", "content": "Whole.", "tool_calls": [{"id": "x"}]}
    llm.script({"json": {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}})
    (delta,) = collect(llm.url)
    assert (delta.content, delta.tool_calls, delta.finish_reason) == (
        "Whole.",
        [{"id": "x"}],
        "stop",
    )


@pytest.mark.parametrize(
    ("response", "code", "detail"),
    [
        (
            {"status": 404, "body": {"error": "model 'gemma' not found"}},
            "llm-error",
            "model 'gemma' not found",
        ),
        (c.http_error(400, "tools need --jinja"), "llm-error", "HTTP 400"),
        (c.http_error(503, "Loading model"), "llm-loading", "Loading model"),
        ({"status": 502, "body": "bad gateway"}, "llm-error", "HTTP 502"),
        ({"stream": [{"raw": "data: [1, 2]\n\n"}]}, "llm-error", "not a JSON object"),
        ({"stream": [{"data": {"choices": ["x"]}}]}, "llm-error", "delta is not an object"),
    ],
)
def test_errors_carry_a_code_and_say_what_happened(
    llm: ScriptedLLM, response: dict[str, Any], code: str, detail: str
) -> None:
    llm.script(response)
    with pytest.raises(LLMError) as caught:
        collect(llm.url)
    assert caught.value.code == code
    assert detail in caught.value.detail


def test_waits_count_the_time_spent_on_the_server(llm: ScriptedLLM) -> None:
    llm.script(c.text("Hi."))

    async def main() -> Waits:
        waits = Waits()
        client = LLMClient(llm.url, timeout=5)
        try:
            async for _ in client.stream([], None, waits):
                pass
        finally:
            await client.aclose()
        return waits

    assert asyncio.run(main()).llm > 0
