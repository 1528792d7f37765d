"""The test helpers that read a time of day out of what Whisper heard and find the tone."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from services.tts.pcm import TONE_HZ, TONE_LEVEL, TONE_SECONDS, ack_tone
from tests.helpers.hearing import RATE, clock_times, loud_regions, says_time, tone_peak
from tests.helpers.words import recall, words


@pytest.mark.parametrize(
    ("heard", "time"),
    [
        ("It is Monday 30 November 2026, 1017.", (10, 17)),
        ("It is Monday, 30 November 2026, 10:17.", (10, 17)),
        ("It's 10.17 on Monday.", (10, 17)),
        ("It is ten seventeen.", (10, 17)),
        ("It is nine oh five.", (9, 5)),
        ("It is twenty-three forty-five.", (23, 45)),
        ("It's 0905.", (9, 5)),
        ("It is Monday 30 November 2026, 009, 009.", (9, 9)),
        ("It is Monday 30 November 2026, 12 or 25", (12, 25)),
    ],
)
def test_clock_times_as_whisper_writes_them(heard: str, time: tuple[int, int]) -> None:
    assert time in clock_times(heard, year=2026)


def test_the_year_and_the_day_are_not_times() -> None:
    assert (20, 26) not in clock_times("Monday 30 November 2026, 1017.", year=2026)
    assert not says_time(
        "Monday 30 November 2026, 1017.",
        datetime(2026, 11, 30, 20, 25), datetime(2026, 11, 30, 20, 25),
    )
    # Except at the minute that repeats the year, which Whisper writes once.
    at = datetime(2026, 11, 30, 20, 26)
    assert says_time("It is Monday 30 November 2026.", at, at)


def test_says_time_allows_each_minute_between_and_12_hour_clocks() -> None:
    asked, answered = datetime(2026, 11, 30, 13, 59, 50), datetime(2026, 11, 30, 14, 0, 3)
    assert says_time("It is 1:59.", asked, answered)
    assert says_time("It is 14:00.", asked, answered)
    assert not says_time("It is 14:01.", asked, answered)


def test_recall_forgives_a_misheard_word_not_a_sentence_cut_short() -> None:
    said = words("Sorry, I can't reach the language model server at 127.0.0.1, port 8080.")
    misheard = words("sorry i cant reach the language model so for at 127 0 0 1 port 8080")
    assert recall(said, misheard) == 14 / 15
    assert recall(said, words("sorry i cant reach the language")) == 6 / 15
    # Each word counts as often as it was said: one "0" does not stand for two.
    assert recall(words("0 0"), words("0")) == 0.5


@pytest.mark.parametrize("pause", [0.0, 0.08])
def test_the_tone_is_found_and_measured_whether_speech_follows_at_once_or_after_a_pause(
    pause: float,
) -> None:
    # A quiet lead-in, the tone at 0.6 of its level, then a loud 440 Hz "voice".
    noise = 0.02 * np.random.default_rng(0).standard_normal(RATE)
    voice = 0.5 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE) + noise
    heard = np.concatenate(
        [np.zeros(RATE // 2), 0.6 * ack_tone(RATE), np.zeros(int(pause * RATE)), voice]
    ).astype(np.float32)
    start = loud_regions(heard)[0][0]
    level = tone_peak(heard, start, TONE_SECONDS, TONE_HZ) / TONE_LEVEL
    assert abs(level - 0.6) < 0.02


def test_a_sound_that_is_not_the_tone_is_not_taken_for_it() -> None:
    voice = 0.5 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE).astype(np.float32)
    with pytest.raises(AssertionError, match="440 Hz"):
        tone_peak(voice, 0.0, TONE_SECONDS, TONE_HZ)
