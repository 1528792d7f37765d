"""Text questions run once per (session, request id): a retry while it runs joins it."""

from __future__ import annotations

from bus.endpoints import Endpoints
from bus.errors import ErrorCode
from bus.messages import QuestionRequest, Reply
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
