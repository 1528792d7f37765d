"""A tool that acts, by voice, on the whole assistant: the question is heard aloud, a no
leaves the calendar as it was, two mumbles cancel it, a yes adds the event (the real example
tool, a real vdir). Silence in the open mic is on the wake-word assistant
(``tests/system/assistant/test_wake_word.py``): this one listens always.

Last of the package on purpose (after ``test_voice.py``): it leaves no action waiting in
the voice session, and a failure clears it (``history clear`` drops it)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bus.messages import ClearHistoryRequest, HistoryCleared, ToolRequest
from services.base.names import LOCAL_SESSION
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Recorder
from tests.helpers.hearing import transcribe
from tests.helpers.words import words
from tests.system.e2e.world import World, tool_result_answer, voice_turn


def test_an_event_is_added_only_after_a_spoken_yes(world: World) -> None:
    assistant, llm = world.assistant, world.assistant.llm
    day = world.today + timedelta(days=1)
    start = f"{day:%Y-%m-%d}T13:00"
    add = c.tool_calls([c.call("add_event", title="Lunch with Anna", start=start)])
    llm.reset()
    llm.script(add, add, add)
    llm.responder = tool_result_answer("Done: {}.")
    calendar = world.vdir.root / "personal"
    before = set(calendar.glob("*.ics")) if calendar.exists() else set()

    async def turn(text: str):  # type: ignore[no-untyped-def]
        async with Recorder(assistant) as rec:
            heard = await voice_turn(assistant, rec, text)
            return heard, rec.of(ToolRequest, heard.turn)

    async def scenario() -> None:
        try:
            asked, calls = await turn("Add lunch with Anna tomorrow at one.")
            assert calls == [] and asked.reply.confirmation, asked.reply
            _, question = asked.question_and_answer()
            heard = set(words(transcribe(question)))
            assert {"lunch", "calendar"} <= heard, heard

            declined, calls = await turn("No, thank you.")
            assert calls == [], "a no runs nothing"
            assert declined.reply.text == "Got it, nothing done."
            assert (set(calendar.glob("*.ics")) if calendar.exists() else set()) == before

            asked, calls = await turn("Add lunch with Anna tomorrow at one.")
            assert calls == [] and asked.reply.confirmation
            again, calls = await turn("The blue one.")  # neither yes nor no: asked once more
            assert calls == [] and again.reply.text.startswith("Sorry, was that a yes or a no?")
            assert again.reply.confirmation == asked.reply.confirmation
            gave_up, calls = await turn("Purple, maybe.")
            assert calls == [], "a misheard answer never runs the action"
            assert gave_up.reply.text == "I didn't catch a yes or a no, so I cancelled it."
            assert (set(calendar.glob("*.ics")) if calendar.exists() else set()) == before

            asked, calls = await turn("Add lunch with Anna tomorrow at one.")
            assert calls == [] and asked.reply.confirmation
            confirmed, calls = await turn("Yes, please.")
            (call,) = calls
            assert call.name == "add_event" and "yes" in words(call.confirmed_by)
            assert confirmed.reply.text == (
                f"Done: added to personal: {day:%Y-%m-%d} 13:00 Lunch with Anna (60 min)."
            )
            assert len(set(calendar.glob("*.ics")) - before) == 1
        finally:
            async with Recorder(assistant) as rec:  # nothing waits for a yes any more
                request = ClearHistoryRequest(session=LOCAL_SESSION)
                rec.bus.publish(request)
                await rec.until(HistoryCleared, lambda m: m.reply_to == request.id)

    asyncio.run(scenario())
