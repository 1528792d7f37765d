"""The brain's HTTP API through real processes: broker, executor, dialogue, brain."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.dialogue.requests import MAX_QUESTION
from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack, fresh, running
from tests.helpers.tool_executor import tool


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with running([tool("now", params={}) | {"result": "12:00"}]) as started:
        yield started


@pytest.fixture
def brain(stack: Stack) -> Iterator[Stack]:
    with fresh(stack):
        yield stack


def ask(
    stack: Stack, text: str, session: str = "s", request_id: str = "", **extra: Any
) -> httpx.Response:
    body = {"session_id": session, "request_id": request_id or f"{session}-{text}", "text": text}
    return httpx.post(f"{stack.url}/ask", json=body | extra, timeout=30)


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def test_ask_returns_conversation_and_control(brain: Stack) -> None:
    brain.llm.script(
        c.text("It is noon."),
        c.tool_calls([c.call("adjust_volume", direction="down")]),
        c.text("Quieter."),
    )
    response = ask(brain, "What time is it?", client_type="text")
    assert response.status_code == 200
    assert response.json() == {
        "conversation": "It is noon.", "control": [], "error": None, "confirmation": ""
    }
    assert offered(brain.llm.requests[0]) == ["now"]
    assert brain.llm.requests[0]["messages"][-1] == {"role": "user", "content": "What time is it?"}

    response = ask(brain, "うるさいから下げて", client_type="voice")
    assert response.json() == {
        "conversation": "Quieter.",
        "control": [{"type": "adjust_volume", "direction": "down"}],
        "error": None,
        "confirmation": "",
    }
    assert offered(brain.llm.requests[1]) == ["now", "adjust_volume"]


def test_a_repeated_request_id_runs_once(brain: Stack) -> None:
    brain.llm.script(c.tool_calls([c.call("now")]), c.text("Noon."))
    first = ask(brain, "Time?", request_id="same")
    second = ask(brain, "Time?", request_id="same")
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json() == {
        "conversation": "Noon.", "control": [], "error": None, "confirmation": ""
    }
    assert len(brain.llm.requests) == 2  # one turn: the tool round and the answer


def test_a_request_id_reused_for_another_question_is_refused(brain: Stack) -> None:
    brain.llm.script(c.text("A."))
    assert ask(brain, "First", request_id="r-conflict").status_code == 200
    response = ask(brain, "Second", request_id="r-conflict")
    assert response.status_code == 409
    assert "already used" in response.json()["error"]


def test_many_sessions_are_served_concurrently(brain: Stack) -> None:
    def echo(body: dict[str, Any]) -> dict[str, Any]:
        text = body["messages"][-1]["content"]
        return {"stream": [{"gate": "all"}, *c.text(f"Echo {text}.")["stream"]]}

    brain.llm.responder = echo
    count = 6

    async def main() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30) as client:
            posts = [
                asyncio.ensure_future(
                    client.post(
                        f"{brain.url}/ask",
                        json={"session_id": f"c{i}", "request_id": f"c{i}", "text": f"q{i}"},
                    )
                )
                for i in range(count)
            ]
            # every question is at the LLM at the same time before any is answered
            await asyncio.to_thread(brain.llm.wait_requests, count)
            brain.llm.gate("all").set()
            return list(await asyncio.gather(*posts))

    responses = asyncio.run(main())
    assert [r.json()["conversation"] for r in responses] == [f"Echo q{i}." for i in range(count)]


def test_sessions_are_isolated_and_clear_history(brain: Stack) -> None:
    brain.llm.script(c.text("Hi Ann."), c.text("Hi."), c.text("You are Ann."), c.text("No idea."))
    ask(brain, "I am Ann", session="ann")
    ask(brain, "Who am I?", session="bob")
    ask(brain, "Who am I?", session="ann", request_id="ann-2")
    cleared = httpx.post(f"{brain.url}/clear_history", json={"session_id": "ann"}, timeout=10)
    assert cleared.status_code == 200
    assert cleared.json() == {"session_id": "ann", "cleared": True}
    ask(brain, "Who am I?", session="ann", request_id="ann-3")
    contents = [[m["content"] for m in r["messages"][1:]] for r in brain.llm.requests]
    assert contents == [
        ["I am Ann"],
        ["Who am I?"],
        ["I am Ann", "Hi Ann.", "Who am I?"],
        ["Who am I?"],
    ]


def test_an_llm_failure_is_an_answer_with_an_error_code_and_may_be_retried(brain: Stack) -> None:
    brain.llm.script(c.http_error(500, "boom"), c.text("Better now."))
    failed = ask(brain, "Hi", request_id="flaky")
    assert failed.status_code == 200
    assert failed.json() == {
        "conversation": "Sorry, something went wrong with the language model's answer.",
        "control": [],
        "error": "llm-error",
        "confirmation": "",
    }
    assert ask(brain, "Hi", request_id="flaky").json()["conversation"] == "Better now."


BAD_INPUT = {
    "malformed JSON": ({"content": b'{"session_id": '}, 400, "malformed JSON"),
    "not an object": ({"json": ["a"]}, 422, "body: must be a JSON object"),
    "missing text": ({"json": {"session_id": "s", "request_id": "r"}}, 422, "text: Field required"),
    "number as id": (
        {"json": {"session_id": 5, "request_id": "r", "text": "t"}},
        422,
        "session_id: Input should be a valid string",
    ),
    "blank text": ({"json": {"session_id": "s", "request_id": "r", "text": "  "}}, 422, "text"),
    "bad client_type": (
        {"json": {"session_id": "s", "request_id": "r", "text": "t", "client_type": "fax"}},
        422,
        "client_type",
    ),
    "oversized": (
        {"json": {"session_id": "s", "request_id": "r", "text": "x" * 70000}},
        413,
        "larger",
    ),
    "oversized chunked": ({"content": iter([b"{" + b" " * 70000 + b"}"])}, 413, "larger"),
    "text/plain": (
        {"content": b"hi", "headers": {"content-type": "text/plain"}},
        415,
        "Content-Type",
    ),
}


@pytest.mark.parametrize("request_kwargs, status, message", BAD_INPUT.values(), ids=list(BAD_INPUT))
def test_bad_input_gets_a_4xx_that_says_what_is_wrong(
    brain: Stack, request_kwargs: dict[str, Any], status: int, message: str
) -> None:
    kwargs = {"headers": {"content-type": "application/json"}} | request_kwargs
    try:
        response = httpx.post(f"{brain.url}/ask", timeout=10, **kwargs)
    except httpx.RemoteProtocolError:
        pytest.fail("the brain dropped the connection instead of answering")
    assert response.status_code == status
    assert message in response.json()["error"]
    assert brain.llm.requests == []
    assert httpx.get(f"{brain.url}/health/ready", timeout=5).status_code == 200


def test_other_refusals_are_json_too(brain: Stack) -> None:
    assert httpx.get(f"{brain.url}/ask").status_code == 405
    missing = httpx.get(f"{brain.url}/nowhere")
    assert (missing.status_code, missing.json()) == (404, {"error": "Not Found"})
    bad_clear = httpx.post(f"{brain.url}/clear_history", json={})
    assert bad_clear.status_code == 422 and "session_id" in bad_clear.json()["error"]


def test_health_and_openapi(brain: Stack) -> None:
    health = httpx.get(f"{brain.url}/health/ready")
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "ready" and "error" not in body
    assert {"dialogue": "ready", "tools": "ready"}.items() <= body["services"].items()
    assert body["services"]["broker"] == "ready"  # every service seen on the bus is listed
    spec = httpx.get(f"{brain.url}/openapi.json").json()
    assert {"/ask", "/clear_history", "/health/ready"} <= set(spec["paths"])
    assert spec["components"]["schemas"]["AskBody"]["required"] == [
        "session_id",
        "request_id",
        "text",
    ]


def test_a_question_longer_than_the_dialogue_reads_is_a_413_that_says_so(brain: Stack) -> None:
    """The cap is the dialogue's, the one place where every route meets: /ask refuses what
    the chat route and ``desktop-assistant ask`` refuse, with the same words."""
    response = ask(brain, "x" * (MAX_QUESTION + 1), request_id="too-long")
    assert response.status_code == 413
    assert response.json() == {
        "error": f"the question is {MAX_QUESTION + 1:,} characters long, more than the "
        f"{MAX_QUESTION:,} the assistant reads: ask it in fewer words"
    }
    brain.llm.script(c.text("Read."))
    assert ask(brain, "y" * MAX_QUESTION, request_id="at-most").json()["conversation"] == "Read."
    assert [len(r["messages"][-1]["content"]) for r in brain.llm.requests] == [MAX_QUESTION]
