"""Hostile input to the brain's HTTP API: every answer a 2xx, or a 4xx with a JSON error.

schemathesis generates requests from the brain's own OpenAPI description
(valid and invalid ones); hand-made cases add what it does not try: huge and
chunked bodies, invalid UTF-8, deep nesting, lone surrogates, and a thousand
questions at once against the limit of questions in progress.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.generation import GenerationMode

from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack, fresh
from tests.helpers.tool_executor import tool

MAX_PENDING = 8
EXAMPLES = 60
"""Generated requests per operation and mode (the whole module runs in about a minute)."""
COUNTS: Counter[str] = Counter()
"""Requests sent, by kind (for docs/reliability.md)."""


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    started = Stack(
        [tool("now", params={}) | {"result": "12:00"}], brain=f"max_pending = {MAX_PENDING}"
    ).start()
    try:
        yield started
    finally:
        started.stop()
        print(f"\nhostile HTTP requests sent: {dict(COUNTS)}")


@pytest.fixture
def brain(stack: Stack) -> Iterator[Stack]:
    with fresh(stack):
        stack.llm.default = c.text("Fine.")
        yield stack


def refusal_is_json(response: Any) -> None:
    """Never a 5xx, and every 4xx carries ``{"error": "<what is wrong>"}`` (under ``/v1/``,
    OpenAI's ``{"error": {"message": "<what is wrong>", ...}}``)."""
    assert response.status_code < 500, (response.status_code, response.text)
    if response.status_code >= 400:
        body = json.loads(response.content)
        assert isinstance(body, dict)
        error = body.get("error")
        if response.request.path_url.startswith("/v1/"):
            error = error.get("message") if isinstance(error, dict) else None
        assert isinstance(error, str) and error, body


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda m: m.value)
def test_generated_requests_never_get_a_server_error(brain: Stack, mode: GenerationMode) -> None:
    api = schemathesis.openapi.from_url(f"{brain.url}/openapi.json")
    operations = [result.ok() for result in api.get_all_operations()]
    assert {op.path for op in operations} >= {"/ask", "/clear_history", "/health/ready"}
    for operation in operations:
        if mode is GenerationMode.NEGATIVE and operation.method.upper() == "GET":
            continue  # nothing to get wrong in a request without parameters or body

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES, deadline=None, database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            COUNTS[f"schemathesis {mode.value}"] += 1
            refusal_is_json(case.call(base_url=brain.url, timeout=30))

        run()


def post(stack: Stack, path: str, content: bytes, **headers: str) -> httpx.Response:
    COUNTS["hand-made"] += 1
    kind = {"Content-Type": "application/json"} | headers
    return httpx.post(f"{stack.url}{path}", content=content, headers=kind, timeout=30)


def assert_refused(response: httpx.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.json()["error"], response.json()


def test_huge_and_endless_bodies_are_refused_before_parsing(brain: Stack) -> None:
    huge = b'{"session_id": "s", "request_id": "r", "text": "' + b"a" * 10_000_000 + b'"}'
    assert_refused(post(brain, "/ask", huge), 413, "larger than")

    def endless() -> Iterator[bytes]:  # chunked, no Content-Length: the limit still holds
        yield b'{"text": "'
        for _ in range(1000):
            yield b"b" * 10_000

    COUNTS["hand-made"] += 1
    response = httpx.post(
        f"{brain.url}/ask", content=endless(), headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert_refused(response, 413, "larger than")


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b'{"session_id": "s", "request_id": "r", "text": "\xff\xfe caf\xe9"}', 400,
         "malformed JSON: not UTF-8 (byte 0xff at offset 48)"),
        (b"[" * 30_000 + b"]" * 30_000, 400, "malformed JSON: nested too deeply"),
        (b'{"session_id": "s", "request_id": "r", "text": ' + b"[" * 20_000 + b"]" * 20_000
         + b"}", 400, "malformed JSON: nested too deeply"),
        (b'{"session_id": "s", "request_id": "r", "text": "hi"', 400, "malformed JSON: Expecting"),
        (b'{"session_id": "s", "request_id": "r", "text": "\\ud800 alone"}', 422, "text"),
        (b'{"session_id": "s", "request_id": "r", "text": 1e999999}', 422, "text"),
        (b'{"session_id": "s", "request_id": "r", "text": NaN}', 422, "text"),
        (b'{"session_id": "s", "request_id": "r", "text": "   \\n\\t"}', 422, "blank"),
        (b"null", 422, "JSON object"),
        (b"", 422, "body"),
        (b'{"session_id": "s", "request_id": "' + b"r" * 201 + b'", "text": "hi"}', 422,
         "request_id"),
    ],
    ids=["invalid-utf8", "nested-arrays", "nested-text", "cut-short", "lone-surrogate",
         "huge-number", "nan", "blank", "null", "empty", "long-request-id"],
)
def test_hand_made_bodies_get_a_json_refusal(
    brain: Stack, body: bytes, status: int, words: str
) -> None:
    assert_refused(post(brain, "/ask", body), status, words)
    assert brain.llm.requests == []  # nothing of it reached the model


def test_other_media_types_and_methods_are_refused_in_json(brain: Stack) -> None:
    form = post(brain, "/ask", b"text=hi", **{"Content-Type": "application/x-www-form-urlencoded"})
    assert_refused(form, 415, "application/json")
    COUNTS["hand-made"] += 2
    assert_refused(httpx.get(f"{brain.url}/ask", timeout=10), 405, "Method Not Allowed")
    assert_refused(httpx.get(f"{brain.url}/nowhere", timeout=10), 404, "Not Found")


def test_a_thousand_questions_at_once_are_bounded_by_the_limit(brain: Stack) -> None:
    gate = brain.llm.gate("hold")
    brain.llm.default = {"stream": [{"gate": "hold"}, *c.text("Done.")["stream"]]}

    async def storm() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            async def one(i: int) -> httpx.Response:
                body = {"session_id": f"session-{i}", "request_id": f"r{i}", "text": "Hi?"}
                return await client.post(f"{brain.url}/ask", json=body)

            tasks = [asyncio.ensure_future(one(i)) for i in range(1000)]
            refused = 0
            while refused < 1000 - MAX_PENDING:  # until every extra question was refused
                done = [t for t in tasks if t.done()]
                refused = len(done)
                await asyncio.sleep(0.05)  # polling the tasks, with the test's timeout
            assert len(brain.llm.requests) <= MAX_PENDING
            gate.set()
            return await asyncio.gather(*tasks)

    responses = asyncio.run(storm())
    COUNTS["hand-made"] += len(responses)
    codes = Counter(r.status_code for r in responses)
    assert codes == {429: 1000 - MAX_PENDING, 200: MAX_PENDING}, codes
    busy = next(r for r in responses if r.status_code == 429)
    assert "ask again" in busy.json()["error"] and busy.headers["Retry-After"] == "1"
    assert all(r.json()["conversation"] == "Done." for r in responses if r.status_code == 200)
    after = post(brain, "/ask", json.dumps({"session_id": "s", "request_id": "x", "text": "Hi"})
                 .encode())
    assert after.status_code == 200  # nothing left in progress
