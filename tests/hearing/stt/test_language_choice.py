"""Which language the embedded recognizer believes: English questions spoken with an accent
stay English (they came out as Japanese kana when the best mean log probability per token
won), and Italian and Japanese questions still come out in their language."""

from __future__ import annotations

import numpy as np
import pytest

from bench.languages import audio, tokens
from hearing.convert import decode_file
from hearing.stt.embedded import EmbeddedWhisper
from hearing.stt.short_window import Heard
from settings.schema import WhisperConfig
from tests.helpers.speech import spoken
from tests.helpers.words import recall

VOICES = ["en", "it", "ja"]
LEAD = 0.6
"""Seconds of silence before the speech, as the mic's utterances have."""


@pytest.fixture(scope="module")
def whisper() -> EmbeddedWhisper:
    return EmbeddedWhisper(WhisperConfig(backend="embedded"), VOICES)


def heard(whisper: EmbeddedWhisper, text: str, lang: str, lead: float = 0.0,
          usual: str | None = None) -> tuple[str, str]:
    samples = np.concatenate([np.zeros(round(lead * 16000), np.float32), audio(text, lang)])
    result = whisper.transcribe_now((samples * 32768).astype("<i2").tobytes(), usual)
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


def test_a_tie_on_the_short_window_is_decided_on_the_whole_window(
    whisper: EmbeddedWhisper,
) -> None:
    """"Who painted the Mona Lisa?" in the accented voice: on the short window its English
    and Japanese decodes scored within 0.05 nats (the kana one ahead, on one CPU); on the
    whole window the English one is ahead by about 4."""
    assert whisper.short is not None
    question = audio("Who painted the Mona Lisa?", "en")
    heard = whisper.short.break_tie(question, ["ja", "en"], budget=30)
    assert isinstance(heard, Heard) and heard.lang == "en", heard
    assert recall(tokens("Who painted the Mona Lisa?", "en"), tokens(heard.text, "en")) >= 0.8


def test_a_tie_with_a_translation_is_decided_by_what_whisper_hears_too(
    whisper: EmbeddedWhisper,
) -> None:
    """"何ができますか" after the mic's lead: its English decode is a translation ("What can
    I do?") as likely as the Japanese words on either window; the whole window's language
    probability (Japanese, 0.99 and more) settles it. By the words alone the English won on
    some CPUs, for three voices of three."""
    assert whisper.short is not None
    question = np.concatenate([np.zeros(round(LEAD * 16000), np.float32),
                               audio("何ができますか", "ja")])
    heard = whisper.short.break_tie(question, ["en", "ja"], budget=30)
    assert isinstance(heard, Heard) and heard.lang == "ja", heard


@pytest.mark.parametrize("usual", ["en", "it"])
def test_a_word_or_two_keeps_the_language_spoken_last(
    whisper: EmbeddedWhisper, usual: str
) -> None:
    """"Stop." is English, and Italian too: its two decodes come within a nat of each other,
    and the language the user spoke last wins (with no hint the whole window decides)."""
    transcript, lang = heard(whisper, "Stop.", "en", 0.3, usual)
    assert lang == usual and "stop" in transcript.lower(), transcript


@pytest.mark.parametrize("usual", ["en", "it"])
def test_a_word_or_two_clearly_in_another_language_still_switches(
    whisper: EmbeddedWhisper, usual: str
) -> None:
    """The hint only settles close calls: a brief Japanese request after English or Italian
    questions is Japanese."""
    transcript, lang = heard(whisper, "音量を上げて", "ja", 0.1, usual)
    assert lang == "ja" and "上げて" in transcript, transcript


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


STOP_VOICES = ["jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo"]
ECHO = "The Roman Empire lasted for more than a thousand years, and its capital moved east."


def voiced(text: str, voice: str) -> np.ndarray:
    """``text`` by Kokoro's ``voice`` at 16 kHz, without the silence around it."""
    samples = np.frombuffer(b"".join(decode_file(spoken(text, voice=voice))), dtype="<i2")
    samples = samples.astype(np.float32) / 32768.0
    loud = np.flatnonzero(np.convolve(np.abs(samples), np.ones(160) / 160, "same")
                          > 0.02 * np.abs(samples).max())
    return samples[loud[0] : loud[-1] + 1]


def stop_over_echo(voice: str, cut: float, level: float, rng: np.random.Generator) -> bytes:
    """"Stop." by ``voice`` cut to its last ``cut`` seconds (the mic heard it late) or, for a
    negative ``cut``, its first; after the mic's 0.3 s lead, over what a canceller left of an
    English answer ``level`` dB under the word, and a little noise."""
    word = voiced("Stop.", voice)
    word = word * (0.3 / np.abs(word).max())
    kept = word[-round(cut * 16000):] if cut > 0 else word[: round(-cut * 16000)]
    clip = np.concatenate([np.zeros(4800, np.float32), kept])
    echo = voiced(ECHO, "jf_nezumi" if voice == "jf_alpha" else "jf_alpha")
    start = int(rng.integers(0, len(echo) - len(clip)))
    loudness = float(np.sqrt(np.mean(word**2)))
    part = echo[start : start + len(clip)]
    clip += part * (loudness * 10 ** (level / 20) / float(np.sqrt(np.mean(part**2))))
    clip += rng.normal(0, loudness * 10 ** (-45 / 20), len(clip)).astype(np.float32)
    return (np.clip(clip, -1, 1) * 32767).astype("<i2").tobytes()


def test_stop_heard_in_part_over_the_answers_echo_stays_english(
    whisper: EmbeddedWhisper,
) -> None:
    """A stop phrase over the assistant's English answer, heard a little late or cut short
    (the system test heard "Stop." as 「スター」 under load): a brief utterance the short
    window cannot trust (another language ahead but unsure, or no speech) is decoded in
    the language spoken last, not in the unsure one's or in what Whisper's detection of a
    few hundred ms says. Some still go to a sure decode of another language ("さようなら"):
    a fragment of a word can be one."""
    rng = np.random.default_rng(7)
    heard = [whisper.transcribe_now(stop_over_echo(voice, cut, level, rng), "en")
             for voice in STOP_VOICES for cut in (0.25, 0.15) for level in (-25, -20, -15, -10)]
    other = [(r.lang, r.text) for r in heard if r.lang != "en"]
    assert len(other) <= 4, other  # of 40; before, 10 to 12 (half of them with no text)
