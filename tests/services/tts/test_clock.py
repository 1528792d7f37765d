"""Clock times are handed to the voice as a speaker of the language says them."""

from __future__ import annotations

import pytest

from services.tts.clock import spoken_times
from tests.helpers.speech import _kokoro


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("Sono le 08:49", "it", "Sono le 8 e 49"),  # Home Assistant's Italian answer
        ("Sono le 20:00", "it", "Sono le 20"),
        (" 9:05 AM ", "en", " 9 oh 5 AM "),  # its English one
        ("12:00 PM", "en-us", "12 PM"),
        ("The train leaves at 14:30.", "en-gb", "The train leaves at 14 30."),
        ("Come at 7:00, please.", "en", "Come at 7 o'clock, please."),
        ("It ends at 10:45 p.m.", "en", "It ends at 10 45 p.m."),
    ],
)
def test_a_time_is_said_in_words_of_its_language(text: str, lang: str, said: str) -> None:
    assert spoken_times(text, lang) == said


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("12:30:05", "en"),  # a time with seconds, a version, a ratio: not a clock time
        ("1.12:30", "en"),
        ("a ratio of 3:2", "en"),
        ("25:00", "it"),
        ("午後8:49です", "ja"),  # Japanese has its own reader
        ("Il est 08:49", "fr"),  # a voice of another language reads it its own way
    ],
)
def test_anything_else_is_left_as_it_is(text: str, lang: str) -> None:
    assert spoken_times(text, lang) == text


def test_the_italian_answer_reaches_the_voice_without_its_leading_zero() -> None:
    """Through espeak-ng, as Kokoro's Italian voice gets it: "otto e quarantanove", where the
    time as written gave "zero otto quarantanove"."""
    phonemize = _kokoro().tokenizer.phonemize
    assert "dzˈɛɾo" in phonemize("Sono le 08:49", "it")
    said = phonemize(spoken_times("Sono le 08:49", "it"), "it")
    assert "dzˈɛɾo" not in said and "ˈɔtːo e kʊaɾˈaːntanˈɔve" in said, said
