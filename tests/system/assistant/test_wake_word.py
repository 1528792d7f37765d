"""The wake word across the whole assistant: every service a real process, the virtual sound
card as mic and speaker, the scripted LLM counting requests.

Speech without the word never reaches the LLM; with the word, the question that follows does,
once; after the spoken answer a follow-up inside the window needs no word; once the window
has closed, speech without the word is ignored again. A tool that acts asks first, and
silence in the window after its question cancels it aloud.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bus.messages import ListenClosed, Reply, Speaking, SpeakRequest, SpeechStarted, ToolRequest
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.speech import padded

FOLLOW_UP = 4.0
WAKE = (f'[listen]\nmode = "wake"\nfollow_up = {FOLLOW_UP}\n[wake]\nearcon = true\n'
        # Questions must reach the LLM, not a local intent ("set a timer" is one).
        '[intents]\nmode = "off"\n')
WORD = "Okay Nabu."
# Kokoro's jf_alpha saying these is not taken for the word (tests/hearing/test_wake.py).
IGNORED = "Tell me a joke about computers."
QUESTION = "What is the weather like in Rome tomorrow?"
FOLLOW = "Set a timer for ten minutes."
ACT = "Add lunch with Anna on Monday at one."


def questions(llm_requests: list[dict[str, Any]]) -> list[str]:
    return [body["messages"][-1]["content"].lower() for body in llm_requests]


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    with Assistant(tools=("add_event",), config=WAKE) as running:
        yield running


async def say(assistant: Assistant, wav: Path) -> None:
    assert assistant.card is not None
    await asyncio.to_thread(assistant.card.play, wav)


async def answered(rec: Recorder, done: set[str]) -> None:
    """Until the next turn (not in ``done``) has its answer spoken."""
    turn = str((await rec.until(SpeechStarted, lambda m: m.turn not in done, 60)).turn)
    await rec.until(Speaking, lambda m: m.turn == turn and not m.speaking, timeout=90)
    done.add(turn)


def test_silence_after_the_question_of_a_tool_that_acts_cancels_it(assistant: Assistant) -> None:
    """First in the module: no follow-up window of an earlier test is open."""
    word, act = padded(WORD, assistant.root)[0], padded(ACT, assistant.root)[0]
    add = c.tool_calls([c.call("add_event", title="Lunch with Anna", start="2030-01-07T13:00")])
    assistant.llm.reset()
    assistant.llm.script(add)

    async def body() -> None:
        async with Recorder(assistant) as rec:
            await say(assistant, word)
            await say(assistant, act)
            asked = await rec.until(Reply, lambda r: bool(r.confirmation), timeout=90)
            assert "lunch" in asked.text.lower(), asked.text
            closed = await rec.until(ListenClosed, lambda m: m.follow_up, timeout=60)
            assert closed.reason == "timeout"
            said = await rec.until(SpeakRequest, lambda s: s.kind == "announce"
                                   and "cancelled" in s.text, timeout=30)
            assert said.text == "No answer, so I cancelled it."
            assert rec.of(ToolRequest) == [], "silence never runs the action"

    asyncio.run(body())


def test_only_speech_after_the_word_reaches_the_llm(assistant: Assistant) -> None:
    folder = assistant.root
    ignored, word = padded(IGNORED, folder)[0], padded(WORD, folder)[0]
    question, follow = padded(QUESTION, folder)[0], padded(FOLLOW, folder)[0]

    assistant.llm.reset()  # counted from here
    assistant.llm.responder = lambda body: c.text("Sure.")

    async def body() -> None:
        async with Recorder(assistant) as rec:
            done: set[str] = set()
            await say(assistant, ignored)  # no word: no turn, no LLM request
            await say(assistant, word)
            await say(assistant, question)
            await answered(rec, done)
            asked = questions(assistant.llm.requests)
            assert len(asked) == 1 and "rome" in asked[0], asked
            await say(assistant, follow)  # inside the follow-up window: no word needed
            await answered(rec, done)
            asked = questions(assistant.llm.requests)
            assert len(asked) == 2 and "minutes" in asked[1], asked
            await rec.until(ListenClosed, lambda m: m.follow_up, timeout=60)
            await say(assistant, ignored)  # the window has closed: the word is needed again
            await say(assistant, word)
            await say(assistant, question)
            await answered(rec, done)
            asked = questions(assistant.llm.requests)
            assert len(asked) == 3 and "rome" in asked[2] and "joke" not in " ".join(asked), asked

    asyncio.run(body())
