"""Tools that modify run only after the user's own yes: by voice and by text, in the
session that asked, before the action expires; a no, a second mumble or a new question
cancel it. The real dialogue on a real broker, a scripted LLM server and executor."""

from __future__ import annotations

import json
import time

from bus.endpoints import Endpoints
from bus.messages import BargeIn, ListenClosed, SpeakRequest
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.tool_executor import tool
from tests.services.dialogue.harness import NOW, Harness, run, tool_messages

ADD = tool(
    "add_event", "Add an event to the calendar.", {"title": "string", "when": "string"},
    modifies=True, confirm={"en": "Add {title} on {when} to your calendar?",
                            "it": "Aggiungo {title} il {when} al calendario?"},
)
PLAIN = tool("send_note", "Send a note to the team.", {"text": "string"}, modifies=True)
QUESTION = "Add Dentist on Friday at 3 to your calendar?"


def calls_add() -> dict[str, object]:
    return c.tool_calls([c.call("add_event", title="Dentist", when="Friday at 3")])


def test_a_modifying_call_asks_and_yes_runs_it(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(calls_add(), c.text("Added it."))

    async def body(h: Harness) -> None:
        asked = await h.voice("Put the dentist on Friday at 3.")
        assert asked.spoken == [QUESTION]
        assert asked.reply.confirmation == QUESTION
        assert "confirm.ask" in asked.stages()
        assert h.executor.calls == [], "nothing runs before the user's yes"
        done = await h.voice("Yes, please.")
        assert done.spoken == ["Added it."]
        assert done.reply.confirmation == ""
        (call,) = h.executor.calls
        assert (call.name, json.loads(call.arguments)) == (
            "add_event", {"title": "Dentist", "when": "Friday at 3"}
        )
        assert (call.confirmed_by, call.session) == ("Yes, please.", "local")

    run(module_broker, llm, body, tools=[ADD, NOW])
    first, second = llm.requests
    (result,) = tool_messages(second)
    assert result["content"] == "add_event: done"
    # The second round goes on from where the model asked, not from "Yes, please."
    assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "add_event"


def test_no_cancels_and_nothing_runs(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(calls_add())

    async def body(h: Harness) -> None:
        await h.voice("Put the dentist on Friday at 3.")
        declined = await h.voice("No.")
        assert declined.spoken == ["Got it, nothing done."]
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[ADD])
    assert len(llm.requests) == 1, "a no needs no model"


def test_a_mumble_is_asked_again_once_then_cancelled(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(calls_add())

    async def body(h: Harness) -> None:
        await h.voice("Put the dentist on Friday at 3.")
        again = await h.voice("Mhm.")
        assert again.spoken == [f"Sorry, was that a yes or a no? {QUESTION}"]
        assert again.reply.confirmation == QUESTION
        gave_up = await h.voice("Hmm, well.")
        assert gave_up.spoken == ["I didn't catch a yes or a no, so I cancelled it."]
        late = await h.voice("Yes.")  # nothing waits any more: a question for the model
        assert h.executor.calls == []
        assert late.reply.error is None

    llm.script(calls_add(), c.text("Yes to what?"))
    run(module_broker, llm, body, tools=[ADD])
    assert llm.requests[-1]["messages"][-1] == {"role": "user", "content": "Yes."}


def test_a_new_question_cancels_says_so_and_is_answered(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(calls_add(), c.text("It is noon."))

    async def body(h: Harness) -> None:
        await h.voice("Put the dentist on Friday at 3.")
        other = await h.voice("What time is it in Tokyo right now?")
        announced = [s.text for s in other.says if s.kind == "announce"]
        assert announced == ["I cancelled the earlier request."]
        assert other.spoken == ["It is noon."]
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[ADD])


def test_by_text_only_the_same_session_confirms(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(calls_add(), c.text("Yes to what?"), c.text("Added."))

    async def body(h: Harness) -> None:
        asked = await h.ask("Put the dentist on Friday at 3.", session="mine")
        assert asked.reply.confirmation == QUESTION and asked.reply.text == QUESTION
        intruder = await h.ask("yes", session="theirs")
        assert intruder.reply.text == "Yes to what?"
        assert h.executor.calls == []
        mine = await h.ask("yes", session="mine")
        assert mine.reply.text == "Added."
        (call,) = h.executor.calls
        assert (call.confirmed_by, call.session) == ("yes", "mine")

    run(module_broker, llm, body, tools=[ADD])


def test_an_expired_action_is_not_run(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(calls_add(), c.text("Yes to what?"))

    async def body(h: Harness) -> None:
        await h.ask("Put the dentist on Friday at 3.", session="mine")
        waited = h.service.answering.state.confirmations.clock() + 61
        h.service.answering.state.confirmations.clock = lambda: waited
        late = await h.ask("yes", session="mine")
        assert late.reply.text == "Yes to what?"
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[ADD])


def test_silence_in_the_open_mic_cancels_aloud(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(calls_add(), c.text("Yes to what?"))

    async def body(h: Harness) -> None:
        asked = await h.voice("Put the dentist on Friday at 3.")
        h.client.publish(ListenClosed(reason="timeout", follow_up=True, turn=asked.reply.turn))
        said = await h.next(SpeakRequest, lambda s: s.kind == "announce")
        assert said.text == "No answer, so I cancelled it."
        await h.voice("Yes.")
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[ADD])


def test_the_wake_word_over_the_question_cancels_it(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(calls_add(), c.text("Yes to what?"))

    async def body(h: Harness) -> None:
        asked = await h.voice("Put the dentist on Friday at 3.")
        h.client.publish(
            BargeIn(reason="wake", interrupted=asked.reply.turn or "", heard=time.time())
        )
        await h.voice("Yes.")
        assert h.executor.calls == []

    run(module_broker, llm, body, tools=[ADD])


def test_without_its_own_question_the_description_and_arguments_are_asked(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.tool_calls([c.call("send_note", text="Lunch is at one")]))

    async def body(h: Harness) -> None:
        asked = await h.voice("Tell the team lunch is at one.", lang="it")
        assert asked.spoken == ["Send a note to the team (text Lunch is at one). Procedo?"]
        declined = await h.voice("No, lascia stare.", lang="it")
        assert declined.spoken == ["Va bene, non lo faccio."]

    run(module_broker, llm, body, tools=[PLAIN])


def test_the_models_iso_dates_are_asked_as_people_say_them() -> None:
    from bus.messages import ToolSpec
    from services.dialogue.confirmation import question
    from services.dialogue.toolcalls import ToolCallRequest

    spec = ToolSpec(**ADD)
    at_one = ToolCallRequest("1", "add_event",
                             json.dumps({"title": "Lunch", "when": "2030-01-07T13:00"}))
    assert question([at_one], {"add_event": spec}, "en") == (
        "Add Lunch on Monday January 7 at 13:00 to your calendar?"
    )
    assert question([at_one], {"add_event": spec}, "it-IT") == (
        "Aggiungo Lunch il lunedì 7 gennaio alle 13:00 al calendario?"
    )
    bare = ToolSpec(**PLAIN)
    day = ToolCallRequest("2", "send_note", json.dumps({"text": "2030-01-07"}))
    assert question([day], {"send_note": bare}, "ja") == (
        "Send a note to the team（text 1月7日）。実行しますか？"
    )
    unread = ToolCallRequest("3", "add_event", "{not json")
    assert question([unread], {"add_event": spec}, "en") == (
        "Add an event to the calendar. Shall I go ahead?"
    )
