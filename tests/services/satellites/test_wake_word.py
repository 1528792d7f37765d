"""Our wake word on a satellite's stream, and the follow-up window after an answer.

A real ``wyoming-satellite`` without a wake word of its own streams its mic all
the time (``wake = true``: the assistant listens for "Okay Nabu" in it). Speech
without the word must not become a question: the scripted LLM is asked nothing
for it. After an answer a question needs no word for ``[listen] follow_up``
seconds of the stream, counted in its samples (the FIFO's quiet is written, not
waited for), then the word is needed again.
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
FOLLOW_UP = "And what about the weekend?"
WINDOW = 3.0
PAST_THE_WINDOW = WINDOW + 1.0


@pytest.fixture(scope="module")
def rooms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rooms]:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return text(ANSWER)

    with served_rooms(tmp_path_factory.mktemp("rooms"), ("hall",), "wake = true", answer,
                      config=f'[listen]\nmode = "wake"\nfollow_up = {WINDOW}\n') as served:
        yield served


def test_only_speech_after_the_wake_word_is_a_question(rooms: Rooms) -> None:
    before = len(rooms.llm.requests)
    # The quiet first: no follow-up window of an earlier answer may still be open.
    heard = rooms.ask("hall", PAST_THE_WINDOW, NOT_A_QUESTION, f"Okay Nabu, {QUESTION}")
    assert recall(words(ANSWER), words(heard)) >= 0.8, heard
    (question,) = rooms.asked(before)  # the speech without the word asked nothing
    assert recall(words(QUESTION), words(question)) >= 0.8, question
    assert "joke" not in question


def test_a_follow_up_needs_no_word_within_the_window(rooms: Rooms) -> None:
    rooms.ask("hall", PAST_THE_WINDOW, f"Okay Nabu, {QUESTION}")
    before = len(rooms.llm.requests)
    heard = rooms.ask("hall", FOLLOW_UP)
    assert recall(words(ANSWER), words(heard)) >= 0.8, heard
    (question,) = rooms.asked(before)
    assert recall(words(FOLLOW_UP), words(question)) >= 0.6, question


def test_past_the_window_the_word_is_needed_again(rooms: Rooms) -> None:
    rooms.ask("hall", PAST_THE_WINDOW, f"Okay Nabu, {QUESTION}")
    before = len(rooms.llm.requests)
    rooms.ask("hall", PAST_THE_WINDOW, FOLLOW_UP, f"Okay Nabu, {QUESTION}")
    (question,) = rooms.asked(before)
    assert "weekend" not in question and "rome" in question, question
