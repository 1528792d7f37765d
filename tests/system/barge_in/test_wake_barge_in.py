"""Barge-in by the wake word on the virtual sound card, with every real process of a spoken
turn (mic, STT, dialogue, speaker with Kokoro) and the scripted LLM.

The mic records the sink's monitor, so it hears the assistant's answer at the
card's level; the assistant plays at a quarter of full volume, and the user's
word is said over it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator

import pytest

from bus.messages import BargeIn, Interrupted, Reply, Speaking, Spoken, Transcript
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.speech import padded
from tests.helpers.words import recall, words

CONFIG = ('[listen]\nmode = "wake"\ntimeout = 4.0\nfollow_up = 3.0\n'
          '[wake]\nearcon = false\n[audio]\nvolume = 0.25\n')
FIRST = "Okay Nabu. Tell me about the history of Rome."
NEXT = "What is the weather like in Rome tomorrow?"
LONG = [
    "Rome was founded, as the legend says, in seven hundred and fifty three before Christ. ",
    "It grew from a small town on seven hills into the capital of a great empire. ",
    "Its republic lasted for almost five centuries, with consuls elected every year. ",
    "Then Augustus became the first emperor, and a long peace began. ",
]
LATER = "The western empire fell in four hundred and seventy six."


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    with Assistant(sound=True, tools=(), services=["mic", "stt", "dialogue", "tts"],
                   config=CONFIG) as assistant:
        yield assistant


def test_the_wake_word_interrupts_a_long_answer_and_the_history_keeps_the_heard_part(
    assistant: Assistant,
) -> None:
    llm = assistant.llm
    gate = llm.gate("later")  # the answer's stream is still running when the word comes
    llm.script(
        {"stream": [*c.text_items(*LONG), {"gate": "later"},
                    *c.text(LATER)["stream"][1:]]},
        c.text("Sunny and warm."),
    )
    card = assistant.card
    assert card is not None
    first, _ = padded(FIRST, assistant.root)
    word, _ = padded("Okay Nabu.", assistant.root, before=0.1)
    question, _ = padded(NEXT, assistant.root, before=0.3)

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            await asyncio.to_thread(card.play, first)
            asked = await rec.until(Transcript, timeout=60)
            turn = asked.turn
            await rec.until(Spoken, lambda s: s.turn == turn, timeout=60)  # a piece played
            await asyncio.to_thread(card.play, word)
            barge_in = await rec.until(BargeIn, timeout=30)
            assert (barge_in.reason, barge_in.interrupted) == ("wake", turn)
            cut = await rec.until(Interrupted, lambda m: m.reply_to == barge_in.id, timeout=10)
            assert cut.turn == turn
            await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking,
                                    timeout=10)
            heard = cut.played
            full = "".join(LONG).strip()
            assert heard and full.startswith(heard.rstrip(".")[: len(heard) // 2])
            assert len(heard) < len(full)
            # The cancelled turn answers with what was heard; nothing of the rest is spoken.
            reply = await rec.until(Reply, lambda r: r.reply_to == turn, timeout=10)
            assert reply.text == heard
            # Remembered (on disk before the reply): the question and only the heard part.
            ((user, said),) = history(assistant)
            assert user == asked.text
            assert said.startswith(heard) and "interrupted" in said
            assert "four hundred" not in said and len(said) < len(full) + 80
            # The next question needs no other word: the barge-in opened the mic.
            await asyncio.to_thread(card.play, question)
            second = await rec.until(Transcript, lambda t: t.turn != turn, timeout=60)
            assert recall(words(NEXT), words(second.text)) >= 0.6, second.text  # ("whether")
            assert second.turn == barge_in.turn
            await rec.until(Reply, lambda r: r.reply_to == second.turn, timeout=60)
            spoken_late = [s for s in rec.of(Spoken, turn) if "four hundred" in s.text]
            assert not spoken_late
            first_exchange, second_exchange = history(assistant)
            assert first_exchange == (user, said)
            assert second_exchange[0] == second.text
        gate.set()

    asyncio.run(scenario())


def history(assistant: Assistant) -> list[tuple[str, str]]:
    """The voice session's exchanges in the dialogue's state file."""
    name = hashlib.sha256(b"local").hexdigest()[:32]
    path = assistant.state / "desktop-assistant" / "history" / f"{name}.json"
    return [(user, said) for user, said in json.loads(path.read_text())["exchanges"]]
