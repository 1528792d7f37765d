"""A satellite's turn ends as the local mic's does: at the short pause once the end-of-turn
model hears a finished question, and not while the question stops mid-sentence.

The real Silero and Smart Turn models on Kokoro-spoken questions, with the default
``[vad]`` (``end_of_turn = "model+text"``): no guess of a satellite's words comes, so the
model alone decides there.
"""

from __future__ import annotations

import numpy as np
import pytest

from hearing.segmenter import Ended
from hearing.smart_turn import SmartTurn
from hearing.vad import load_scorer
from services.satellites.ear import Ear
from settings.schema import VadConfig
from tests.helpers.pauses import RATE, speech16, split

PAUSE = 0.8
"""Seconds of silence after the words: past the short pause, short of the long silence."""
CHUNK = 1024
"""Bytes per push, as a Wyoming stream's chunks come (512 samples)."""


@pytest.fixture(scope="module")
def model() -> SmartTurn:
    return SmartTurn()


def ends(model: SmartTurn, words: np.ndarray) -> list[Ended]:
    """The ``Ended`` events of a satellite's stream: a gap, ``words``, then ``PAUSE``."""
    vad = VadConfig()
    assert vad.short_silence < PAUSE < vad.silence
    ear = Ear(vad, load_scorer(vad.engine), None, listen_window=5.0, turn_model=model)
    ear.expect(wake_word=False)
    gap = np.zeros(RATE // 2, np.float32)
    samples = np.concatenate([gap, words, np.zeros(round(PAUSE * RATE), np.float32)])
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    heard = [event for at in range(0, len(pcm), CHUNK) for event in ear.hear(pcm[at:at + CHUNK])]
    return [event for event in heard if isinstance(event, Ended)]


def test_a_finished_question_ends_at_the_short_pause(model: SmartTurn) -> None:
    (ended,) = ends(model, speech16("What is the capital of Australia?"))
    assert not ended.split


def test_a_question_cut_off_mid_sentence_waits(model: SmartTurn) -> None:
    assert ends(model, split("What is the capital of Australia?", 5).before) == []
