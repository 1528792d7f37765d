"""A satellite with a wake word of its own: it streams to the assistant only after its word.

A real ``wyoming-satellite`` started with ``--wake-uri`` sends its mic to its wake word
service, here our own Wyoming server (``services.wyoming``, the mic's "Okay Nabu"
model), and only once that service detects the word sends ``run-pipeline`` from the
``asr`` stage and streams its mic to the assistant. The assistant must then take the
speech that follows as the question at once, without waiting for our wake word in it
(the satellite heard it already), and must ask nothing for speech the satellite's
service did not wake on. Each turn needs the word again: the satellite asks its service
to ``detect`` anew after every transcript.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.llm_chunks import text
from tests.helpers.satellite_rooms import Rooms, served_rooms
from tests.helpers.words import recall, words

ANSWER = "It is sunny in Rome today, with a light wind from the sea."
NOT_A_QUESTION = "Tell me a joke about computers."
"""Speech the wake word's own tests show is not the word."""
QUESTION = "What is the weather like in Rome tomorrow?"
SECOND_QUESTION = "How warm will it be in Paris?"


@pytest.fixture(scope="module")
def rooms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rooms]:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return text(ANSWER)

    with served_rooms(tmp_path_factory.mktemp("rooms"), ("porch",), "", answer,
                      own_wake_word=True) as served:
        yield served


def test_after_its_own_word_the_question_is_answered_out_of_its_speaker(rooms: Rooms) -> None:
    before = len(rooms.llm.requests)
    # The speech without the word goes to its wake service first, in the same stream:
    # were it taken for the word, the satellite would stream it as the question.
    rooms.wake("porch", NOT_A_QUESTION, "Okay Nabu.")
    assert rooms.peers["porch"].detections()[-1] == "okay_nabu"
    heard = rooms.ask("porch", QUESTION)
    assert recall(words(ANSWER), words(heard)) >= 0.8, heard
    (question,) = rooms.asked(before)  # the speech without the word asked nothing
    assert recall(words(QUESTION), words(question)) >= 0.8, question
    assert "joke" not in question and "nabu" not in question, question


def test_every_turn_needs_the_word_again(rooms: Rooms) -> None:
    rooms.wake("porch", "Okay Nabu.")
    rooms.ask("porch", QUESTION)
    before = len(rooms.llm.requests)
    # Right after the answer the satellite listens for its word again, not to us.
    rooms.wake("porch", NOT_A_QUESTION, "Okay Nabu.")
    heard = rooms.ask("porch", SECOND_QUESTION)
    assert recall(words(ANSWER), words(heard)) >= 0.8, heard
    (question,) = rooms.asked(before)
    assert recall(words(SECOND_QUESTION), words(question)) >= 0.8, question
    assert "joke" not in question, question
