"""Silero VAD and the segmenter on generated audio: bounds, counts, noise, maximum length."""

from __future__ import annotations

import numpy as np
import pytest

from hearing.convert import decode_file
from hearing.segmenter import Began, Ended, Event, Paused, Resumed, Segmenter
from hearing.vad import FRAME, RATE, SpeechScorer, load_scorer, to_float
from settings.schema import VadConfig
from tests.helpers.speech import speech_bounds, spoken

QUESTION = "What is the weather like in Rome tomorrow?"
SECOND = "Set a timer for ten minutes."
MONOLOGUE = (
    "Once upon a time there was a little fox who lived at the edge of a large forest, "
    "and every morning he walked down to the river to drink and to watch the fish."
)
ENGINES = ["lite", "onnx"]
WINDOW = 0.5
"""A fixed end-of-speech window (no end-of-turn model): these tests are about Silero."""


def speech(text: str) -> np.ndarray:
    """``text`` spoken, at 16 kHz (resampled from Kokoro's 24 kHz by the mic's own decoder)."""
    pcm = b"".join(decode_file(spoken(text)))
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE), dtype=np.float32)


@pytest.fixture(scope="module", params=ENGINES)
def scorer(request: pytest.FixtureRequest) -> SpeechScorer:
    return load_scorer(request.param)


def segment(audio: np.ndarray, scorer: SpeechScorer, vad: VadConfig | None = None) -> list[Event]:
    scorer.reset()
    segmenter = Segmenter(vad or VadConfig(silence=WINDOW))
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
    events: list[Event] = []
    for at in range(0, len(pcm) - 2 * FRAME + 1, 2 * FRAME):
        frame = pcm[at : at + 2 * FRAME]
        events += segmenter.push(frame, scorer(to_float(frame)))
    return events


def finals(events: list[Event]) -> list[Ended]:
    return [e for e in events if isinstance(e, Ended)]


def test_one_question_gives_one_utterance_with_its_bounds(scorer: SpeechScorer) -> None:
    question = speech(QUESTION)
    first, last = speech_bounds(question, RATE)
    events = segment(np.concatenate([silence(1.0), question, silence(1.5)]), scorer)
    [ended] = finals(events)
    assert abs(ended.start / RATE - (1.0 + first)) < 0.15
    assert abs(ended.end / RATE - (1.0 + last)) < 0.15
    # The order the bus sees: speech began, the window started (partial), the window closed.
    assert [type(e) for e in events] == [Began, Paused, Ended]
    paused = events[1]
    assert isinstance(paused, Paused)
    assert paused.pcm == ended.pcm  # the final is exactly the audio transcribed speculatively
    # Pre-roll: the utterance starts [vad] pre_roll before the first voiced frame.
    assert len(ended.pcm) / 2 / RATE == pytest.approx(
        (ended.end - ended.start) / RATE + 0.288 + FRAME / RATE, abs=0.001
    )


def test_two_questions_give_two_utterances(scorer: SpeechScorer) -> None:
    audio = np.concatenate([silence(0.5), speech(QUESTION), silence(1.0), speech(SECOND),
                            silence(1.0)])
    assert len(finals(segment(audio, scorer))) == 2


def test_a_pause_shorter_than_the_window_keeps_one_utterance(scorer: SpeechScorer) -> None:
    audio = np.concatenate([silence(0.5), speech(QUESTION), silence(0.3), speech(SECOND),
                            silence(1.0)])
    events = segment(audio, scorer)
    [ended] = finals(events)
    paused = [e for e in events if isinstance(e, Paused)]
    assert len(paused) >= 2  # a speculative copy at the pause, superseded when speech resumed
    assert paused[-1].pcm == ended.pcm
    assert paused[0].end < ended.end
    # Each copy but the last is followed by the word that speech went on, after its end: the
    # copy's guess is stale. The last one's utterance ended instead.
    after = [type(e) for e in events[1:]]
    assert after == [Paused, Resumed] * (len(paused) - 1) + [Paused, Ended]
    resumed = [e for e in events if isinstance(e, Resumed)]
    assert all(copy.end < went_on.start for copy, went_on in zip(paused, resumed, strict=False))


@pytest.mark.parametrize("kind", ["white", "brown"])
def test_noise_alone_gives_nothing(scorer: SpeechScorer, kind: str) -> None:
    rng = np.random.default_rng(7)
    noise = rng.normal(0.0, 1.0, 8 * RATE)
    if kind == "brown":
        noise = np.cumsum(noise)
        noise -= np.convolve(noise, np.ones(400) / 400, mode="same")  # no DC drift
    noise *= 0.1 / np.sqrt(np.mean(noise**2))  # as loud as the speech
    assert segment(noise.astype(np.float32), scorer) == []


def test_speech_in_noise_at_0_db_is_found(scorer: SpeechScorer) -> None:
    question = speech(QUESTION)
    audio = np.concatenate([silence(1.0), question, silence(1.5)])
    rng = np.random.default_rng(3)
    noise = rng.normal(0.0, 1.0, len(audio)).astype(np.float32)
    noise *= np.sqrt(np.mean(question**2))  # 0 dB SNR
    assert len(finals(segment(audio + noise, scorer))) == 1


def test_the_maximum_length_splits_a_monologue(scorer: SpeechScorer) -> None:
    monologue = speech(MONOLOGUE)
    assert len(monologue) / RATE > 8
    events = segment(np.concatenate([monologue, silence(1.0)]), scorer,
                     VadConfig(silence=WINDOW, max_utterance=3.0))
    parts = finals(events)
    assert len(parts) >= 3
    assert all(len(p.pcm) / 2 / RATE <= 3.0 + FRAME / RATE for p in parts)
    assert any(p.split for p in parts)


def test_a_sound_shorter_than_min_speech_is_ignored(scorer: SpeechScorer) -> None:
    word = speech(QUESTION)[: round(0.15 * RATE)]
    assert segment(np.concatenate([silence(0.5), word, silence(1.0)]), scorer) == []
