"""A question with a pause mid-sentence, across the whole assistant (every service a real
process, the virtual sound card as mic and speaker, the wake word on, as by default).

The turn ends in the pause (a fixed 0.5 s window here, so that it surely does); the user
goes on before any answer is heard. The first half must not be answered on its own and
the rest must not be lost: the mic hears on while the answer is being prepared, and the
LLM is asked the whole question. The scripted LLM holds any answer to the first half
back, so the test does not race the answer's first sound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import numpy as np

from bus.messages import BargeIn, Reply, Speaking
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.pauses import RATE, split
from tests.helpers.speech import padded, write_wav
from tests.helpers.words import words

CONFIG = ('[listen]\nmode = "wake"\n[wake]\nearcon = true\n'
          '[vad]\nend_of_turn = "silence"\nsilence = 0.5\n'
          '[intents]\nmode = "off"\n'
          # English only: a half sentence alone is too short for Whisper to tell its language.
          '[whisper]\nlanguage = "en"\n')
QUESTION = "Set a timer for ten minutes."
PAUSE = 1.0


def asked(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"]).lower()


def is_whole(question: str) -> bool:
    """Both halves' words: "set a timer" alone has 3, the whole question 6. Counted, not
    matched: Whisper has heard the rest, after the pause, as "for zero time"."""
    return len(words(question)) >= 5


REST = {"10", "minutes", "minute"}
"""Words only the rest of the question (after the pause) says."""


def answerer() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Holds an answer back (never heard) unless its question holds a word of the rest, or
    has more words than every one asked before it: the whole question. Told apart by a
    count of words alone, the first half passed for the whole when Whisper heard five
    words in it ("set a time of foot", 3 runs in 9 alone), was answered, and the mic,
    deaf while the answer played, never heard the rest. Told apart by order alone, the
    whole was held back when the first half's transcript came after the rest had begun
    (a loaded machine: 1.7 s of STT), and the dialogue rightly asked only the whole."""
    before: list[int] = []

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        question = words(asked(body))
        longer = bool(before) and len(question) > max(before)
        before.append(len(question))
        if longer or REST & set(question):
            return c.text("Your timer is set.")
        return {"stream": c.text_items("Which") + [{"gate": "first half"}]}

    return answer


def test_the_rest_of_a_paused_question_joins_it() -> None:
    with Assistant(tools=(), config=CONFIG) as assistant:
        assert assistant.card is not None
        assistant.llm.responder = answerer()
        word = padded("Okay Nabu.", assistant.root)[0]
        paused = split(QUESTION, 3).with_pause(PAUSE)
        audio = np.concatenate([np.zeros(round(0.3 * RATE)), paused, np.zeros(round(0.3 * RATE))])
        question = write_wav(assistant.root / "paused.wav", audio.astype(np.float32), RATE)

        async def body() -> None:
            async with Recorder(assistant) as rec:
                await asyncio.to_thread(assistant.card.play, word)
                await asyncio.to_thread(assistant.card.play, question)
                resumed = await rec.until(BargeIn, lambda m: m.reason == "resumed", 60)
                reply = await rec.until(Reply, lambda m: m.turn == resumed.turn, 90)
                assert reply.text == "Your timer is set."
                await rec.until(Speaking, lambda m: m.turn == resumed.turn and not m.speaking,
                                timeout=90)
                questions = [asked(b) for b in assistant.llm.requests]
                # Both halves' words in one question (Whisper may hear "timer" as "time"),
                # asked last: after the first half alone, or alone when the first half's
                # transcript came after the rest had begun.
                whole = questions[-1]
                assert whole.startswith("set a") and is_whole(whole), questions
                assert len(words(whole)) > len(words(questions[0])) or len(questions) == 1
                spoken = [m for m in rec.seen if isinstance(m, Speaking) and m.speaking]
                assert {m.turn for m in spoken} == {resumed.turn}  # the first half: silent

        try:
            asyncio.run(body())
        except AssertionError as exc:  # what was heard, asked and judged says why
            asked_all = [asked(b) for b in assistant.llm.requests]
            raise AssertionError(f"{exc}\nasked: {asked_all}\n"
                                 f"{assistant.logs(['mic', 'stt', 'dialogue'])}") from None
