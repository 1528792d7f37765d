"""The espeak-ng voice through the real speaker: a sentence is heard whole, without gaps."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from bus.client import Bus
from tests.helpers.hearing import at_16k, loud_regions, transcribe
from tests.helpers.speaker import RunningTTS, turn
from tests.helpers.words import recall, words

LONGEST_INNER_GAP = 0.15
"""Seconds: a longer silence inside a sentence is heard as a break between two utterances."""
SHORT = "The kitchen timer is ready."
LONG = (
    "The kitchen timer for the pasta is ready now and the oven timer for the bread will be "
    "ready in about ten more minutes."  # over the longest piece: spoken in two
)


@pytest.fixture(scope="module")
def tts() -> Iterator[RunningTTS]:
    running = RunningTTS("espeak", None)  # no sound card: --wav-out records it
    try:
        running.start(ready=("degraded",))
        yield running
    finally:
        running.close()


def spoken(tts: RunningTTS, text: str) -> np.ndarray:
    """What the speaker played for one turn saying ``text``, at 16 kHz."""

    async def body(bus: Bus) -> str:
        return (await turn(bus, [text]))[0]

    samples, rate = tts.wav(tts.session(body))
    return at_16k(samples, rate)


@pytest.mark.parametrize("text", [SHORT, LONG], ids=["short", "two-pieces"])
def test_a_sentence_is_heard_whole_without_a_break_inside(tts: RunningTTS, text: str) -> None:
    audio = spoken(tts, text)
    regions = loud_regions(audio, floor=0.01, gap=LONGEST_INNER_GAP)
    assert len(regions) == 1, f"breaks inside the sentence: {regions}"
    heard = transcribe(audio)
    assert recall(words(text), words(heard)) >= 0.9, heard
