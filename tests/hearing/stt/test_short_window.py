"""The default Whisper on a short window: as right as the whole window, never trusted blindly."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from hearing.convert import decode_file
from hearing.stt.embedded import EmbeddedWhisper
from hearing.stt.engine import Superseded
from hearing.stt.scoring import loops
from hearing.stt.short_window import ShortWindow
from settings.schema import WhisperConfig
from tests.helpers.speech import spoken
from tests.helpers.words import recall, words

VOICES = ["en", "it", "ja"]
"""The languages of the default voice tables."""
QUESTIONS = [
    "What time is it?",
    "How far is the moon from the earth?",
    "Could you tell me what the weather will be like in Rome tomorrow?",
]


@pytest.fixture(scope="module")
def whisper() -> EmbeddedWhisper:
    return EmbeddedWhisper(WhisperConfig(backend="embedded"), VOICES)


def audio(text: str) -> np.ndarray:
    pcm = b"".join(decode_file(spoken(text)))
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


def test_questions_come_back_whole_on_the_short_window(whisper: EmbeddedWhisper) -> None:
    """Nothing cut, nothing repeated, nearly every word right. Not word for word: which of
    "will" and "would" base hears in the third question differs from one CPU to another
    (the same int8 model, other kernels), on either window."""
    assert whisper.short is not None
    for question in QUESTIONS:
        heard = whisper.short.transcribe(audio(question))
        assert heard is not None and heard.lang == "en"
        assert len(words(heard.text)) == len(words(question)), heard.text
        assert recall(words(question), words(heard.text)) >= 0.9, heard.text


def test_two_questions_in_a_row_are_not_cut_or_repeated(whisper: EmbeddedWhisper) -> None:
    assert whisper.short is not None
    pause = np.zeros(8000, dtype=np.float32)
    both = np.concatenate([audio(QUESTIONS[1]), pause, audio(QUESTIONS[2])])
    heard = whisper.short.transcribe(both)
    assert heard is not None
    expected = words(f"{QUESTIONS[1]} {QUESTIONS[2]}")
    # Every word there once (base hears "will" as "would" here): nothing cut, nothing twice.
    assert len(words(heard.text)) == len(expected)
    assert recall(expected, words(heard.text)) >= 0.9


def test_silence_is_left_to_the_whole_window(whisper: EmbeddedWhisper) -> None:
    # On a short window Whisper hears "you" in silence; the whole window knows better.
    assert whisper.short is not None
    assert whisper.short.transcribe(np.zeros(16000, dtype=np.float32)) is None
    assert whisper.transcribe_now(bytes(32000)).text == ""


def test_a_run_superseded_during_the_short_window_never_takes_the_whole_one(
    whisper: EmbeddedWhisper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: a stale guess whose short window could not be trusted went on to the whole
    window (detection, then a 30 s encode and decode) while the rest of the question waited
    for the engine. Told to stop while the short window runs, it gives up after it."""
    assert whisper.short is not None
    whole: list[str] = []
    for name in ("transcribe", "detect_language"):
        method = getattr(whisper.model, name)

        def counted(*args: Any, _method: Any = method, _name: str = name, **kw: Any) -> Any:
            whole.append(_name)
            return _method(*args, **kw)

        monkeypatch.setattr(whisper.model, name, counted)
    silence = bytes(32000)  # the short window leaves it to the whole window (above)
    assert whisper.transcribe_now(silence).text == "" and whole, "no whole window to skip"
    whole.clear()
    stop = threading.Event()
    short = whisper.short.transcribe

    def superseded_meanwhile(*args: Any, **kw: Any) -> Any:
        result = short(*args, **kw)
        stop.set()  # the rest of the question came while the short window ran
        return result

    monkeypatch.setattr(whisper.short, "transcribe", superseded_meanwhile)
    with pytest.raises(Superseded):
        whisper.transcribe_now(silence, stop=stop)
    assert whole == []
    with pytest.raises(Superseded):  # superseded before it started: nothing at all runs
        whisper.transcribe_now(silence, stop=stop)


def test_a_window_too_short_for_the_question_loops_and_is_caught(
    whisper: EmbeddedWhisper,
) -> None:
    # With 1 s of silence after "What time is it?", Whisper says it twice.
    question = audio(QUESTIONS[0])
    tight = ShortWindow(whisper.model, ["en"], 2.0, beam_size=1, margin=1.0)
    assert tight.transcribe(question) is None


def test_a_long_utterance_takes_the_whole_window(whisper: EmbeddedWhisper) -> None:
    assert whisper.short is not None
    long = np.zeros(27 * 16000, dtype=np.float32)
    assert whisper.short.window(long) == 0
    assert whisper.short.transcribe(long) is None


def test_loops_are_runs_of_words_that_come_back() -> None:
    assert loops("What time is it? What time is it")
    assert not loops("What time is it? Is it late?")
    assert not loops("Turn the volume up a little, please.")
