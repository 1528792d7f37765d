"""One turn hands the speaker at most MAX_SPOKEN_CHARS of its answer, cut at a sentence end."""

from __future__ import annotations

from bus.endpoints import Endpoints
from services.dialogue.speech import MAX_SPOKEN_CHARS
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, run


def test_a_long_answer_is_spoken_up_to_the_bound_and_shown_whole(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    sentences = [f"This is sentence number {n} of a very long answer." for n in range(200)]
    llm.script(c.text(*(s + " " for s in sentences)), c.text("Short again."))

    async def body(h: Harness) -> None:
        record = await h.voice("Read me the whole book.")
        spoken = record.spoken
        assert sum(len(s) for s in spoken) <= MAX_SPOKEN_CHARS < len(" ".join(sentences))
        assert spoken == sentences[: len(spoken)]  # whole sentences, from the first on
        assert sum(len(s) + 1 for s in sentences[: len(spoken) + 1]) > MAX_SPOKEN_CHARS
        assert record.says[-1].final  # the turn still ends for the speaker
        assert record.reply.text == " ".join(sentences)  # the reply keeps every word
        nxt = await h.voice("And now?")
        assert nxt.spoken == ["Short again."]  # the bound is per turn

    run(module_broker, llm, body)


def test_a_first_sentence_longer_than_the_bound_is_spoken_up_to_it(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    words = " ".join(f"word{n}" for n in range(600))  # one sentence, no end in sight
    llm.script(c.text(words))

    async def body(h: Harness) -> None:
        record = await h.voice("Say everything.")
        (spoken,) = record.spoken
        assert len(spoken) <= MAX_SPOKEN_CHARS and words.startswith(spoken + " ")
        assert record.reply.text == words

    run(module_broker, llm, body)
