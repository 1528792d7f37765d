"""A tool that modifies, asked over the brain's ``/ask``: the answer says an action waits,
and only the same session's next ask says yes. Real processes: broker, scripted executor,
dialogue, brain."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack, running
from tests.helpers.tool_executor import tool

SEND = tool("send_note", "Send a note to the team.", {"text": "string"}, modifies=True,
            confirm={"en": "Send {text} to the team?"}) | {"result": "sent"}


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with running([SEND]) as started:
        yield started


def ask(stack: Stack, text: str, session: str, request_id: str) -> dict[str, object]:
    body = {"session_id": session, "request_id": request_id, "text": text}
    response = httpx.post(f"{stack.url}/ask", json=body, timeout=30)
    assert response.status_code == 200, response.text
    answer: dict[str, object] = response.json()
    return answer


def test_the_answer_says_an_action_waits_and_only_its_session_confirms(stack: Stack) -> None:
    stack.llm.script(
        c.tool_calls([c.call("send_note", text="lunch at one")]),
        c.text("Yes to what?"),
        c.text("Sent it."),
    )
    asked = ask(stack, "Tell the team lunch is at one.", "ann", "1")
    assert asked == {"conversation": "Send lunch at one to the team?", "control": [],
                     "error": None, "confirmation": "Send lunch at one to the team?"}
    other = ask(stack, "yes", "bob", "2")
    assert (other["conversation"], other["confirmation"]) == ("Yes to what?", "")
    done = ask(stack, "Yes, send it.", "ann", "3")
    assert (done["conversation"], done["confirmation"]) == ("Sent it.", "")
    tool_messages = [m for m in stack.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["sent"]
    assert len(stack.llm.requests) == 3
