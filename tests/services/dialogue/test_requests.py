"""Text questions run once per (session, request id): a retry while it runs joins it."""

from __future__ import annotations

import time

from bus.endpoints import Endpoints
from bus.errors import ErrorCode
from bus.messages import QuestionRequest, Reply
from services.base.phrases import apology
from services.dialogue.requests import MAX_QUESTION
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, run


def test_a_retry_while_the_question_runs_gets_the_same_answer_from_one_run(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    gate = llm.gate("answer")
    llm.script(
        {"stream": c.text_items("Forty") + [{"gate": "answer"}] + c.text("-two.")["stream"][1:]}
    )

    async def body(h: Harness) -> None:
        first = QuestionRequest(session="cli", text="The answer?", request_id="r1")
        retry = QuestionRequest(session="cli", text="The answer?", request_id="r1")
        empty = QuestionRequest(session="other", text=" ")
        for msg in (first, retry, empty):
            h.client.publish(msg)
        # Answered at once, after the retry in the dialogue's inbox: the retry was taken
        # while the first run still waits on the gate.
        refused = await h.next(Reply, lambda r: r.reply_to == empty.id)
        assert refused.error == ErrorCode.EMPTY_QUESTION
        gate.set()
        answers: dict[str, Reply] = {}
        while len(answers) < 2:
            reply = await h.next(Reply, lambda r: r.reply_to in (first.id, retry.id))
            answers[reply.reply_to or ""] = reply
        assert {(r.text, r.error, r.session) for r in answers.values()} == {
            ("Forty-two.", None, "cli")
        }

    run(module_broker, llm, body)
    assert len(llm.requests) == 1


def test_a_question_longer_than_the_cap_is_refused_at_once_whatever_route_it_took(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    """Every text route (/ask, /v1/chat/completions, ``desktop-assistant ask``, a satellite)
    is a QuestionRequest: the dialogue refuses one longer than MAX_QUESTION before anything
    reads it. 100k characters went to the LLM whole; 3.9 M froze the dialogue for 2.4 s."""
    llm.script(c.text("Read it all."))

    async def body(h: Harness) -> None:
        at_most = QuestionRequest(session="cli", text="a" * MAX_QUESTION)
        over = QuestionRequest(session="cli", text="b" * (MAX_QUESTION + 1))
        huge = QuestionRequest(session="http", text="x " * 1_950_000, client_type="voice")
        for msg in (over, huge):
            h.client.publish(msg)
        started = time.monotonic()
        refused = await h.next(Reply, lambda r: r.reply_to == over.id)
        assert refused.error == ErrorCode.QUESTION_TOO_LONG
        assert refused.text == (
            f"the question is {MAX_QUESTION + 1:,} characters long, more than the "
            f"{MAX_QUESTION:,} the assistant reads: ask it in fewer words"
        )
        refused = await h.next(Reply, lambda r: r.reply_to == huge.id)
        assert time.monotonic() - started < 1.0  # no seconds spent reading it
        assert refused.error == ErrorCode.QUESTION_TOO_LONG
        assert refused.text == apology(ErrorCode.QUESTION_TOO_LONG, "en")[0]  # said aloud
        h.client.publish(at_most)
        answered = await h.next(Reply, lambda r: r.reply_to == at_most.id)
        assert (answered.text, answered.error) == ("Read it all.", None)

    run(module_broker, llm, body)
    assert [len(r["messages"][-1]["content"]) for r in llm.requests] == [MAX_QUESTION]
