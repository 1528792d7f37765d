"""Request ids are kept per session on both sides of the bus, through a brain restart."""

from __future__ import annotations

import httpx

from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack


def ask(stack: Stack, session: str, request_id: str, text: str) -> httpx.Response:
    body = {"session_id": session, "request_id": request_id, "text": text}
    return httpx.post(f"{stack.url}/ask", json=body, timeout=30)


def restart_brain(stack: Stack) -> None:
    stack.processes["services.brain"].stop()
    stack.run("services.brain")
    stack.wait_ready()


def test_a_request_id_reused_by_another_session_after_a_brain_restart() -> None:
    stack = Stack([]).start()
    try:
        stack.llm.script(c.text("Answer for A."))
        assert ask(stack, "a", "r1", "Who am I?").json()["conversation"] == "Answer for A."

        restart_brain(stack)  # the brain forgets every request id it saw

        stack.llm.script(c.text("Answer for B."))
        reply = ask(stack, "b", "r1", "Who am I?")
        assert reply.status_code == 200
        assert reply.json()["conversation"] == "Answer for B."
        assert len(stack.llm.requests) == 2  # B's question ran: it was not A's answer again

        again = ask(stack, "a", "r1", "Who am I?")  # only the dialogue still knows
        assert again.json()["conversation"] == "Answer for A."
        reused = ask(stack, "a", "r1", "Something else")
        assert reused.status_code == 409
        assert reused.json() == {"error": "request_id 'r1' was already used for another question"}
        assert len(stack.llm.requests) == 2  # neither ran the LLM
    finally:
        stack.stop()


def test_another_session_may_use_the_same_request_id() -> None:
    stack = Stack([]).start()
    try:
        stack.llm.script(c.text("First."), c.text("Second."))
        one = ask(stack, "a", "same", "Hi")
        two = ask(stack, "b", "same", "Hi")
        assert (one.status_code, two.status_code) == (200, 200)
        assert {one.json()["conversation"], two.json()["conversation"]} == {"First.", "Second."}
    finally:
        stack.stop()
