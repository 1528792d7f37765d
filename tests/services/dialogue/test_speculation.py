"""Answers prepared on the STT's guess while the end-of-speech window runs.

The dialogue starts the first LLM round on a ``SpeculativeTranscript``; its
pieces go out as speculative ``SpeakRequest``; the final ``Transcript`` confirms
(same words) or drops (other words, no final) the work. Nothing speculative
may reach a tool or the history.
"""

from __future__ import annotations

import time
from typing import Any

from bus.endpoints import Endpoints
from bus.messages import Error, Reply, SpeakRequest, Speculation, SpeechResumed, TraceMark
from services.base.names import STT
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import NOW, Harness, run, until


def user_texts(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def history(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The (role, content) pairs between the system prompt and the question."""
    return [(m["role"], m["content"]) for m in request["messages"][1:-1]]


async def quiet(h: Harness, seconds: float) -> None:
    """Keep reading for ``seconds`` (to show that nothing more happens)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        msg = await h.client.recv(timeout=left)
        if msg is not None:
            h.seen.append(msg)


def test_a_confirmed_guess_is_the_answer_and_plays_what_was_prepared(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        {"stream": c.text_items("Canberra. ", "It is")
         + [{"gate": "rest"}] + c.text(" a planned city.")["stream"][1:]},
        c.text("Rome."),
    )

    async def body(h: Harness) -> None:
        turn = h.guess("What is the capital of Australia?")
        first = await h.next(SpeakRequest, lambda s: s.turn == turn)
        assert (first.text, first.speculative) == ("Canberra.", True)
        # Before the final transcript: no trace marks, no verdict, no reply for the turn.
        assert not [m for m in h.seen if isinstance(m, TraceMark | Speculation | Reply)]
        h.say("What is the capital of Australia?", turn=turn)
        verdict = await h.next(Speculation, lambda s: s.turn == turn)
        assert verdict.confirmed
        llm.gate("rest").set()
        record = await h.reply(turn)
        assert [(s.text, s.speculative) for s in record.says] == [
            ("Canberra.", True), ("It is a planned city.", False)]
        assert record.reply.text == "Canberra. It is a planned city."
        assert record.reply.error is None
        # The held marks went out once confirmed, with the times they were made at.
        marks = record.of(TraceMark)
        assert [m.stage for m in marks][:2] == ["llm.request", "llm.first_token"]
        assert marks[1].ts < verdict.ts
        nxt = await h.voice("And of Italy?")
        assert nxt.reply.text == "Rome."

    run(module_broker, llm, body)
    first, second = llm.requests
    assert user_texts(first) == ["What is the capital of Australia?"]
    assert history(second) == [
        ("user", "What is the capital of Australia?"),
        ("assistant", "Canberra. It is a planned city."),
    ]


def answer_by_question(body: dict[str, Any]) -> dict[str, Any]:
    question = body["messages"][-1]["content"]
    if question == "What is the capital of":
        return c.text("The capital of what?")
    if question == "What is the capital of Australia?":
        return c.text("Canberra.")
    return c.text(f"You said: {question}")


def test_speech_that_resumed_drops_the_guess_and_answers_the_whole_question(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.responder = answer_by_question

    async def body(h: Harness) -> None:
        turn = h.guess("What is the capital of")
        stale = await h.next(SpeakRequest, lambda s: s.turn == turn)
        assert (stale.text, stale.speculative) == ("The capital of what?", True)
        h.say("What is the capital of Australia?", turn=turn)
        record = await h.reply(turn)
        verdicts = record.of(Speculation)
        assert [v.confirmed for v in verdicts] == [False]
        after = [s for s in record.says if s.ts > verdicts[0].ts]
        assert [(s.text, s.speculative) for s in after] == [("Canberra.", False)]
        assert record.reply.text == "Canberra."
        await h.voice("Thanks")

    run(module_broker, llm, body)
    *_, last = llm.requests
    assert history(last) == [("user", "What is the capital of Australia?"),
                             ("assistant", "Canberra.")]


def test_speech_going_on_after_the_guess_drops_its_answer_at_once(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    """Issue 29: the answer to the guess of a pause was synthesized while the user said the
    rest of the question, and the STT's run on the whole question shared the CPU with it.
    The mic's ``SpeechResumed`` drops it at once; a guess of that pause arriving late
    prepares nothing; a guess made after it does."""
    llm.responder = answer_by_question

    async def body(h: Harness) -> None:
        turn = h.guess("What is the capital of", speech_end=100.0)
        stale = await h.next(SpeakRequest, lambda s: s.turn == turn)
        assert (stale.text, stale.speculative) == ("The capital of what?", True)
        h.client.publish(SpeechResumed(resumed_at=100.5, turn=turn))
        verdict = await h.next(Speculation, lambda s: s.turn == turn)
        assert not verdict.confirmed  # with no final transcript yet
        asked = len(llm.requests)
        h.guess("What is the capital of", turn=turn, speech_end=100.0)  # late, stale
        h.guess("What is the capital of Australia?", turn=turn, speech_end=101.8)
        fresh = await h.next(SpeakRequest, lambda s: s.turn == turn)
        assert (fresh.text, fresh.speculative) == ("Canberra.", True)
        assert [user_texts(r)[-1] for r in llm.requests[asked:]] == [
            "What is the capital of Australia?"]
        h.say("What is the capital of Australia?", turn=turn)
        record = await h.reply(turn)
        # dropped when the speech went on, then the newer guess's answer confirmed
        assert [v.confirmed for v in record.of(Speculation)] == [False, True]
        assert record.reply.text == "Canberra."

    run(module_broker, llm, body)


def test_a_tool_call_in_the_guessed_round_waits_for_the_confirmation(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("now")]), c.text("It is noon."))

    async def body(h: Harness) -> None:
        turn = h.guess("What time is it?")
        await until(lambda: len(llm.requests) == 1, what="the guessed round")
        await quiet(h, 0.5)
        assert h.executor.calls == []
        assert not [m for m in h.seen if isinstance(m, SpeakRequest)]
        h.say("What time is it?", turn=turn)
        record = await h.reply(turn)
        assert [call.name for call in h.executor.calls] == ["now"]
        assert record.spoken == ["It is noon."]
        assert [v.confirmed for v in record.of(Speculation)] == [True]

    run(module_broker, llm, body, tools=[NOW], results={"now": "12:00"})
    assert len(llm.requests) == 2  # the guessed round's calls were used, not asked again


def test_a_guess_that_asked_for_a_tool_and_changed_never_runs_it(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    def respond(body: dict[str, Any]) -> dict[str, Any]:
        if body["messages"][-1]["content"] == "Turn it":
            return c.tool_calls([c.call("now")])
        return c.text("Done.")

    llm.responder = respond

    async def body(h: Harness) -> None:
        turn = h.guess("Turn it")
        await until(lambda: len(llm.requests) == 1, what="the guessed round")
        h.say("Turn it off, never mind.", turn=turn)
        record = await h.reply(turn)
        assert record.reply.text == "Done."
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[NOW], results={"now": "12:00"})


def test_a_guess_without_a_final_transcript_is_dropped_and_forgotten(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("A stale answer."), c.text("A fresh answer."))

    async def body(h: Harness) -> None:
        turn = h.guess("A stale question")
        await h.next(SpeakRequest, lambda s: s.turn == turn)
        h.client.publish(Error(service=STT, code="stt-failed", message="boom", turn=turn))
        verdict = await h.next(Speculation, lambda s: s.turn == turn)
        assert not verdict.confirmed
        record = await h.voice("A fresh question")
        assert record.reply.text == "A fresh answer."

    run(module_broker, llm, body)
    stale, fresh = llm.requests
    assert history(fresh) == []


def test_a_newer_guess_of_the_same_turn_replaces_the_older(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        {"stream": c.text_items("Older. ", "More") + [{"gate": "never"}]},
        c.text("Newer."),
    )

    async def body(h: Harness) -> None:
        turn = h.guess("Tell me")
        await h.next(SpeakRequest, lambda s: s.turn == turn and s.text == "Older.")
        h.guess("Tell me more", turn=turn)
        dropped = await h.next(Speculation, lambda s: s.turn == turn)
        assert not dropped.confirmed
        h.say("Tell me more", turn=turn)
        record = await h.reply(turn)
        assert [v.confirmed for v in record.of(Speculation)] == [False, True]
        assert record.reply.text == "Newer."

    run(module_broker, llm, body)
    assert [user_texts(r)[-1] for r in llm.requests] == ["Tell me", "Tell me more"]


def test_a_failed_guessed_round_is_asked_again_for_the_final_question(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.http_error(503, "loading model"), c.text("Fine."))

    async def body(h: Harness) -> None:
        turn = h.guess("How are you?")
        await until(lambda: len(llm.requests) == 1, what="the guessed round")
        await quiet(h, 0.3)
        h.say("How are you?", turn=turn)
        record = await h.reply(turn)
        assert (record.reply.text, record.reply.error) == ("Fine.", None)
        assert record.of(Speculation) == []  # nothing was said: nothing to drop
        assert record.of(Error) == []

    run(module_broker, llm, body)
    assert len(llm.requests) == 2


def test_no_guess_is_taken_while_a_turn_of_the_session_runs(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script({"stream": c.text_items("Busy. ", "Still") + [{"gate": "first"}]
                + c.text(" busy.")["stream"][1:]}, c.text("Second."))

    async def body(h: Harness) -> None:
        first = h.say("First")
        await h.next(SpeakRequest, lambda s: s.turn == first)
        second = h.guess("Second")
        await quiet(h, 0.3)
        assert len(llm.requests) == 1
        llm.gate("first").set()
        await h.reply(first)
        h.say("Second", turn=second)
        record = await h.reply(second)
        assert record.of(Speculation) == []
        assert not any(s.speculative for s in record.says)

    run(module_broker, llm, body)
    assert len(llm.requests) == 2


def test_guesses_are_ignored_when_speculation_is_off(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Only once."))

    async def body(h: Harness) -> None:
        turn = h.guess("Hello")
        await quiet(h, 0.3)
        assert llm.requests == []
        h.say("Hello", turn=turn)
        record = await h.reply(turn)
        assert [(s.text, s.speculative) for s in record.says] == [("Only once.", False)]

    run(module_broker, llm, body, speculative=False)
    assert len(llm.requests) == 1
