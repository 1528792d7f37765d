"""The assistant's own wake word: which texts say it, and which playing turns count."""

from __future__ import annotations

import pytest

from services.mic.own_voice import OwnVoice, mentions


@pytest.mark.parametrize(
    "text",
    [
        "You can wake me by saying Okay Nabu.",
        "Say OK Nabu and ask.",
        "say “okay, nabu!” first",
        "O.K. Nabu is my name",
        "okay-nabu",
        "OKAYNABU",
    ],
)
def test_close_forms_of_the_phrase_count(text: str) -> None:
    assert mentions("Okay Nabu", text)
    assert mentions("ok nabu", text)


@pytest.mark.parametrize(
    "text",
    [
        "Okay, the weather in Rome is sunny.",
        "Nabu is a Babylonian god.",
        "Okay. Now, about your question.",
        "",
    ],
)
def test_other_texts_do_not(text: str) -> None:
    assert not mentions("Okay Nabu", text)


def test_other_phrases() -> None:
    assert mentions("Hey Jarvis", "I answer to hey, Jarvis.")
    assert mentions("Alexa", "Alexa's cousin")
    assert not mentions("Hey Jarvis", "Jarvis is here")
    assert not mentions("", "Okay Nabu")  # no phrase: nothing is its own word


def test_only_a_turn_that_may_be_playing_counts() -> None:
    voice = OwnVoice("Okay Nabu")
    voice.said("a", "You can wake me by saying")
    voice.said("a", "Okay Nabu.")  # pieces of one turn are read together
    voice.said("b", "Sunny and warm.")
    voice.on_speaking(True)
    assert voice.says_word("a")
    assert not voice.says_word("b")
    voice.said("c", "Okay Nabu is the word.")  # queued after b, in the same playing span
    assert voice.says_word("b")
    voice.on_speaking(False)
    voice.on_speaking(True)  # a new span, started by d
    assert not voice.says_word("d")


def test_pieces_split_the_phrase_across_a_sentence_break() -> None:
    voice = OwnVoice("Okay Nabu")
    voice.said(None, "Just say okay.")
    voice.said(None, "Nabu will answer.")
    assert voice.says_word(None)  # said back to back, it sounds like the word


def test_without_a_phrase_nothing_is_remembered() -> None:
    voice = OwnVoice("")
    voice.said("a", "Okay Nabu.")
    assert not voice.says_word("a")
    assert not voice.texts


def test_only_the_latest_turns_are_kept() -> None:
    voice = OwnVoice("Okay Nabu")
    voice.said("old", "Okay Nabu.")
    voice.on_speaking(True)
    for n in range(20):
        voice.said(str(n), "Something else.")
    assert "old" not in voice.texts
    assert not voice.says_word("old")
