"""The ``openai`` SDK against the brain's ``/v1`` routes, through real processes: broker, the
tools service with a tool file, dialogue, brain; the LLM is the scripted double."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from services.brain.openai_api import MAX_CHAT_BODY
from services.dialogue.requests import MAX_QUESTION
from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack, fresh

TOKEN = "open-sesame"
THERMOMETER = f"""description = "The room's temperature."
command = ["{sys.executable}", "-c", "print('21.5 C')"]
"""


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    started = Stack([], brain=f'token = "{TOKEN}"')
    tools = started.folder.path / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    (tools / "room_temperature.toml").write_text(THERMOMETER)
    started.headers = {"Authorization": f"Bearer {TOKEN}"}
    started.start(executor=False, wait=False)
    started.run("services.tools")
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()


@pytest.fixture
def brain(stack: Stack) -> Iterator[Stack]:
    with fresh(stack):
        yield stack


def client(stack: Stack, key: str = TOKEN, **headers: str) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{stack.url}/v1", api_key=key, max_retries=0, timeout=30, default_headers=headers
    )


def sent(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, content) of the messages the dialogue sent the LLM, without the system prompt."""
    return [(m["role"], m.get("content") or "") for m in request["messages"][1:]]


def test_the_assistant_is_the_one_model_listed(brain: Stack) -> None:
    assert [m.id for m in client(brain).models.list()] == ["desktop-assistant"]


def test_an_answer_after_a_tool_call_with_only_the_last_user_message_asked(brain: Stack) -> None:
    brain.llm.script(c.tool_calls([c.call("room_temperature")]), c.text("It is 21.5 C in here."))
    completion = client(brain).chat.completions.create(
        model="anything",
        user="kitchen",
        messages=[
            {"role": "system", "content": "The client's own prompt."},
            {"role": "user", "content": "An old question the client repeats."},
            {"role": "assistant", "content": "An old answer."},
            {"role": "user", "content": [{"type": "text", "text": "How warm is it?"}]},
        ],
    )
    message = completion.choices[0].message
    assert message.content == "It is 21.5 C in here."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.object == "chat.completion"
    assert message.model_extra == {"desktop_assistant": {"actions": [], "error": None}}
    first, second = brain.llm.requests
    assert sent(first) == [("user", "How warm is it?")]
    assert [n["function"]["name"] for n in first["tools"]] == ["room_temperature"]
    assert sent(second)[-1] == ("tool", "21.5 C")  # the real tool ran in the middle


def test_a_streamed_answer_arrives_piece_by_piece_around_a_tool_call(brain: Stack) -> None:
    brain.llm.script(
        c.tool_calls([c.call("room_temperature")], content="Let me look."),
        {
            "stream": [
                *c.text_items("It is ", "21.5 C."),
                {"gate": "rest"},
                *c.text("\n\n- warm", " enough  ")["stream"][1:],
            ]
        },
    )
    stream = client(brain).chat.completions.create(
        model="desktop-assistant",
        messages=[{"role": "user", "content": "How warm is it?"}],
        stream=True,
    )
    texts: list[str] = []
    chunks = iter(stream)
    while "".join(texts) != "Let me look. It is 21.5 C.":
        texts.append(next(chunks).choices[0].delta.content or "")
    brain.llm.gate("rest").set()  # the text so far came while the LLM was still writing
    rest = list(chunks)
    texts += [chunk.choices[0].delta.content or "" for chunk in rest]
    assert "".join(texts) == "Let me look. It is 21.5 C.\n\n- warm enough"
    assert len([t for t in texts if t]) >= 4
    last = rest[-1]
    assert last.object == "chat.completion.chunk"
    assert last.choices[0].finish_reason == "stop"
    assert last.choices[0].delta.model_extra == {
        "desktop_assistant": {"actions": [], "error": None}
    }
    assert sent(brain.llm.requests[1])[-1] == ("tool", "21.5 C")


def test_a_volume_request_comes_back_as_an_action(brain: Stack) -> None:
    brain.llm.script(c.tool_calls([c.call("adjust_volume", direction="down")]), c.text("Quieter."))
    completion = client(brain).chat.completions.create(
        model="desktop-assistant",
        messages=[{"role": "user", "content": "Too loud!"}],
        extra_body={"desktop_assistant": {"client_type": "voice"}},
    )
    assert completion.choices[0].message.content == "Quieter."
    assert completion.choices[0].message.model_extra == {
        "desktop_assistant": {
            "actions": [{"type": "adjust_volume", "direction": "down"}],
            "error": None,
        }
    }


def test_the_session_keeps_its_history_and_a_retry_is_answered_once(brain: Stack) -> None:
    brain.llm.script(c.text("Hello Ann."), c.text("You are Ann."))
    ann = client(brain, **{"X-Session-Id": "ann-room"})
    ask: list[ChatCompletionMessageParam] = [{"role": "user", "content": "I am Ann."}]
    once = ann.chat.completions.create(
        model="m", messages=ask, extra_headers={"Idempotency-Key": "k1"}
    )
    again = ann.chat.completions.create(
        model="m", messages=ask, extra_headers={"Idempotency-Key": "k1"}
    )
    assert once.choices[0].message.content == again.choices[0].message.content == "Hello Ann."
    answer = ann.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Who am I?"}], stream=True
    )
    assert "".join(ch.choices[0].delta.content or "" for ch in answer) == "You are Ann."
    assert len(brain.llm.requests) == 2
    assert sent(brain.llm.requests[1]) == [
        ("user", "I am Ann."),
        ("assistant", "Hello Ann."),
        ("user", "Who am I?"),
    ]


@pytest.mark.parametrize(
    ("messages", "message", "param"),
    [
        (
            [{"role": "system", "content": "Be brief."}],
            'no text in a message with role "user"',
            None,
        ),
        ([], "messages: List should have at least 1 item", "messages"),
        ([{"content": "hi"}], "messages.0.role: Field required", "messages.0.role"),
    ],
)
def test_a_bad_request_is_a_400_in_openai_shape(
    brain: Stack, messages: list[dict[str, Any]], message: str, param: str | None
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client(brain).chat.completions.create(model="m", messages=messages)  # type: ignore[arg-type]
    assert refused.value.status_code == 400
    assert message in refused.value.message
    assert refused.value.type == "invalid_request_error"
    assert refused.value.param == param
    assert brain.llm.requests == []


def test_a_wrong_token_is_an_authentication_error(brain: Stack) -> None:
    with pytest.raises(openai.AuthenticationError) as refused:
        client(brain, key="wrong").models.list()
    assert refused.value.body == {
        "message": "missing or wrong bearer token",
        "type": "authentication_error",
        "param": None,
        "code": "invalid_api_key",
    }
    with pytest.raises(openai.AuthenticationError):
        client(brain, key="wrong").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )


def test_curl_style_request_without_the_sdk(brain: Stack) -> None:
    brain.llm.script(c.text("Hi."))
    response = httpx.post(
        f"{brain.url}/v1/chat/completions",
        json={
            "model": "desktop-assistant",
            "messages": [{"role": "user", "content": "Hi"}],
            "stream": True,
        },
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=30,
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line for line in response.text.split("\n\n") if line]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"


def test_no_dialogue_is_a_503_in_openai_shape() -> None:
    stack = Stack([])
    stack.start(dialogue=False, wait=False)
    try:
        until_listening(stack)
        for stream in (False, True):
            with pytest.raises(openai.InternalServerError) as refused:
                client(stack, key="no token needed").chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}], stream=stream
                )
            assert refused.value.status_code == 503
            assert refused.value.code == "unavailable"
            assert "the dialogue service is not running" in refused.value.message
    finally:
        stack.stop()


def until_listening(stack: Stack, timeout: float = 30.0) -> None:
    """Wait until the brain answers at all (it is not ready: its dialogue is missing)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(f"{stack.url}/health/ready", timeout=2)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)  # the process is still starting: nothing to wait on but its port


def test_a_long_chat_is_accepted_though_only_its_last_message_is_asked(brain: Stack) -> None:
    brain.llm.script(c.text("Still here."))
    said = "words " * 10_000  # 60 KB a message: the whole chat is far beyond /ask's 64 KiB
    history: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": said} if i % 2 else {"role": "assistant", "content": said}
        for i in range(10)
    ]
    completion = client(brain).chat.completions.create(
        model="m",
        user="long-chat",
        messages=[*history, {"role": "user", "content": "Are you there?"}],
    )
    assert completion.choices[0].message.content == "Still here."
    assert sent(brain.llm.requests[0]) == [("user", "Are you there?")]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_question_longer_than_the_dialogue_reads_is_refused_in_openai_shape(
    brain: Stack, stream: bool
) -> None:
    """100,000 characters went to the LLM whole; now the dialogue's cap, the one every route
    meets (/ask's too), refuses it before the LLM, as a 413 the SDK raises."""
    with pytest.raises(openai.APIStatusError) as refused:
        client(brain).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x" * 100_000}], stream=stream
        )
    assert refused.value.status_code == 413
    assert refused.value.body == {
        "message": f"the question is 100,000 characters long, more than the {MAX_QUESTION:,} "
        "the assistant reads: ask it in fewer words",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    assert brain.llm.requests == []


def test_a_body_of_millions_of_characters_is_refused_at_once_and_nothing_stalls(
    brain: Stack,
) -> None:
    """3.9 M characters (a body under the chat route's 4 MiB) froze the dialogue for 2.4 s:
    missed heartbeats, and /health/ready said 503. Bodies past 4 MiB are refused unread."""
    question = {"role": "user", "content": "x" * 3_900_000}
    started = time.monotonic()
    response = httpx.post(
        f"{brain.url}/v1/chat/completions",
        json={"model": "m", "messages": [question]},
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=30,
    )
    assert time.monotonic() - started < 2.0
    assert response.status_code == 413
    assert "3,900,000 characters long" in response.json()["error"]["message"]
    ready = httpx.get(f"{brain.url}/health/ready", headers=brain.headers, timeout=5)
    assert ready.status_code == 200 and ready.json()["services"]["dialogue"] == "ready"
    oversized = httpx.post(
        f"{brain.url}/v1/chat/completions",
        content=b'{"messages": [{"role": "user", "content": "' + b"x" * MAX_CHAT_BODY + b'"}]}',
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        timeout=30,
    )
    assert oversized.status_code == 413
    assert oversized.json()["error"]["message"] == f"request body larger than {MAX_CHAT_BODY} bytes"
    assert brain.llm.requests == []
