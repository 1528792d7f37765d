"""A question the user went on with after the turn had closed: the first part is not
answered on its own; it is the start of the next turn's question."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bus.endpoints import Endpoints
from bus.message import new_id
from bus.messages import BargeIn, Reply, TurnDropped
from services.dialogue.resumption import joined
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, run


def last_user_text(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def exchanges(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The (role, content) pairs between the system prompt and the question."""
    return [(m["role"], m["content"]) for m in request["messages"][1:-1]]


def resume(h: Harness, first: str) -> str:
    """The mic heard speech go on with turn ``first`` before its answer: the new turn."""
    turn = new_id()
    h.client.publish(BargeIn(reason="resumed", interrupted=first, heard=time.time(), turn=turn))
    return turn


def test_the_first_part_is_not_answered_and_joins_the_rest(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(
        {"stream": c.text_items("It is") + [{"gate": "never"}]},
        c.text("Tomorrow in Rome it rains."),
        c.text("You are welcome."),
    )

    async def body(h: Harness) -> None:
        first = h.say("What's the weather like in.")
        await asyncio.to_thread(llm.wait_requests, 1)
        rest = resume(h, first)
        cancelled = await h.reply(first)
        assert cancelled.reply.text == "" and not cancelled.spoken
        record = await h.reply(h.say("Rome tomorrow?", turn=rest))
        assert record.spoken == ["Tomorrow in Rome it rains."]
        await h.voice("Thanks.")
        requests = llm.requests
        assert len(requests) == 3
        assert last_user_text(requests[1]) == "What's the weather like in Rome tomorrow?"
        assert exchanges(requests[1]) == []  # the first part is in no history
        assert exchanges(requests[2]) == [
            ("user", "What's the weather like in Rome tomorrow?"),
            ("assistant", "Tomorrow in Rome it rains."),
        ]

    run(module_broker, llm, body)


def test_a_first_part_answered_but_not_yet_heard_leaves_the_history(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Sure."), c.text("The alarm is set for seven."))

    async def body(h: Harness) -> None:
        first = await h.voice("Set an alarm.")  # answered at once, not yet played
        assert first.reply.text == "Sure."
        rest = resume(h, first.reply.turn or "")
        await h.reply(h.say("For seven tomorrow.", turn=rest))
        # each part as Whisper wrote it
        assert last_user_text(llm.requests[1]) == "Set an alarm For seven tomorrow."
        assert exchanges(llm.requests[1]) == []

    run(module_broker, llm, body)


def test_the_user_may_go_on_before_the_first_part_is_transcribed(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    # The guess's own request may reach the LLM before the resumption cancels it, and
    # takes a response then: one for it, one for the joined question, whichever comes.
    llm.script(c.text("Tomorrow in Rome it rains."), c.text("Tomorrow in Rome it rains."))

    async def body(h: Harness) -> None:
        first = new_id()
        h.guess("What's the weather like in.", turn=first)  # prepared on the guess ...
        rest = resume(h, first)  # ... when the user goes on, before the STT's final
        h.say("What's the weather like in.", turn=first)
        assert (await h.reply(first)).reply.text == ""
        record = await h.reply(h.say("Rome tomorrow?", turn=rest))
        assert record.spoken == ["Tomorrow in Rome it rains."]
        assert [last_user_text(r) for r in llm.requests][-1] == (
            "What's the weather like in Rome tomorrow?")
        assert all("Rome" in last_user_text(r) for r in llm.requests[1:])

    run(module_broker, llm, body)


def test_speech_that_brings_no_words_asks_the_first_part_alone(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script({"stream": c.text_items("It") + [{"gate": "never"}]}, c.text("Ten past nine."))

    async def body(h: Harness) -> None:
        first = h.say("What time is it?")
        await asyncio.to_thread(llm.wait_requests, 1)
        rest = resume(h, first)
        await h.reply(first)
        h.client.publish(TurnDropped(reason="no-speech", turn=rest))  # a cough
        reply = await h.next(Reply, lambda r: r.turn == rest)
        assert reply.text == "Ten past nine."
        assert last_user_text(llm.requests[1]) == "What time is it?"

    run(module_broker, llm, body)


def test_other_barge_ins_still_keep_the_heard_part() -> None:
    """Only ``resumed`` joins questions: a wake word over an answer is a new question."""
    from services.dialogue.resumption import Resumptions

    asked = {"t1": ("s", "What time is it?")}
    resumptions = Resumptions()
    wake = BargeIn(reason="wake", interrupted="t1", heard=0.0, turn="t2")
    assert not resumptions.resumed(wake, asked)
    assert resumptions.text("t2", "Tell me a joke.") == "Tell me a joke."
    resumed = BargeIn(reason="resumed", interrupted="t1", heard=0.0, turn="t2")
    assert resumptions.resumed(resumed, asked)
    assert resumptions.text("t2", "In Tokyo.") == "What time is it In Tokyo."


def test_parts_join_as_one_sentence() -> None:
    assert joined("What's the weather like in.", "Rome tomorrow?") == (
        "What's the weather like in Rome tomorrow?"
    )
    assert joined("明日の天気は。", "ローマで？") == "明日の天気はローマで？"
    assert joined("Che tempo fa a", "") == "Che tempo fa a"
    assert joined("", "Roma?") == "Roma?"
