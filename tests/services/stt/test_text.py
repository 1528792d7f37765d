"""Whisper's text and language names, made fit for the rest of the system."""

from __future__ import annotations

import pytest
from faster_whisper.tokenizer import _LANGUAGE_CODES

from hearing.stt.languages import CODES, iso_code
from services.stt.text import spoken_words


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" What time is it?\n", "What time is it?"),
        ("[BLANK_AUDIO]", ""),
        (" (music)", ""),
        ("[Music] ♪", ""),
        ("*laughs*", ""),
        (" .", ""),
        ("?!", ""),
        ("", ""),
        (" Hello [BLANK_AUDIO] there.", "Hello there."),
        ("Set a timer for 10 minutes.", "Set a timer for 10 minutes."),
        ("今日は何曜日ですか", "今日は何曜日ですか"),
    ],
)
def test_non_speech_is_removed(raw: str, expected: str) -> None:
    assert spoken_words(raw) == expected


def test_whisper_language_names_map_to_iso_codes() -> None:
    assert iso_code("english") == "en"
    assert iso_code("Italian") == "it"
    assert iso_code("japanese") == "ja"
    assert iso_code("haitian creole") == "ht"
    assert iso_code("en") == "en"
    assert iso_code("klingon") is None
    # Every language Whisper knows has a name here.
    assert set(CODES.values()) == set(_LANGUAGE_CODES)
