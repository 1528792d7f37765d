"""A guess that differs from the final transcript only in case, punctuation or a
trailing filler still answers it; any other difference does not."""

from __future__ import annotations

import pytest

from bus.endpoints import Endpoints
from bus.messages import SpeakRequest, Speculation
from services.dialogue.wording import same_words
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, run


@pytest.mark.parametrize(("guess", "final"), [
    ("What's the weather in Rome", "What's the weather in Rome?"),
    ("what's the weather in rome?", "What\u2019s the weather in Rome?"),
    ("What's the weather in Rome, please?", "What's the weather in Rome?"),
    ("Che tempo fa a Roma", "Che tempo fa a Roma? Grazie."),
    ("明日の天気は", "明日の天気は？"),
    ("Um", "Um."),
])
def test_the_same_question_in_other_punctuation_case_or_with_a_filler(
    guess: str, final: str
) -> None:
    assert same_words(guess, final)


@pytest.mark.parametrize(("guess", "final"), [
    ("What's the weather in Rome", "What's the weather in Rome tomorrow?"),
    ("What's the weather in Rome?", "What's the weather in Paris?"),
    ("What is the capital of", "What is the capital of Australia?"),
    ("Turn the light on", "Turn the light on please now"),  # only one trailing filler
    ("Please", "Thanks"),  # a filler alone is the whole question
])
def test_another_question(guess: str, final: str) -> None:
    assert not same_words(guess, final)


def test_a_guess_without_the_question_mark_is_confirmed(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Sunny, twenty degrees."))

    async def body(h: Harness) -> None:
        turn = h.guess("What's the weather in Rome")
        first = await h.next(SpeakRequest, lambda s: s.turn == turn)
        assert first.speculative
        h.say("What's the weather in Rome?", turn=turn)
        verdict = await h.next(Speculation, lambda s: s.turn == turn)
        assert verdict.confirmed
        record = await h.reply(turn)
        assert record.reply.text == "Sunny, twenty degrees."

    run(module_broker, llm, body)
    assert len(llm.requests) == 1  # the first round was not asked again


def test_a_guess_of_another_question_is_dropped(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Sunny in Rome."), c.text("Rain in Rome tomorrow."))

    async def body(h: Harness) -> None:
        turn = h.guess("What's the weather in Rome")
        await h.next(SpeakRequest, lambda s: s.turn == turn)
        h.say("What's the weather in Rome tomorrow?", turn=turn)
        verdict = await h.next(Speculation, lambda s: s.turn == turn)
        assert not verdict.confirmed
        record = await h.reply(turn)
        assert record.reply.text == "Rain in Rome tomorrow."

    run(module_broker, llm, body)
    assert len(llm.requests) == 2
