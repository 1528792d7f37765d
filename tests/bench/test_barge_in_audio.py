"""The barge-in benchmark finds the interrupting word under the answer, where the word ends,
and where the answer falls silent, on synthetic recordings whose truth is known."""

from __future__ import annotations

import numpy as np
import pytest

from bench.barge_in_audio import last_sound, locate, time_to_silence, trimmed, voiced_bounds

RATE = 16000


def word(seconds: float = 0.6, seed: int = 1) -> np.ndarray:
    """A word-like burst: noise under a rising and falling envelope, with a quiet tail."""
    rng = np.random.default_rng(seed)
    n = round(seconds * RATE)
    envelope = np.sin(np.linspace(0, np.pi, n)) ** 2
    burst = (0.8 * envelope * rng.standard_normal(n)).astype(np.float32)
    tail = (0.005 * rng.standard_normal(RATE // 10)).astype(np.float32)
    return np.concatenate([burst, tail])


def answer(seconds: float, seed: int = 2) -> np.ndarray:
    """Speech-like sound at a quarter of the word's level, never silent."""
    rng = np.random.default_rng(seed)
    return (0.2 * rng.standard_normal(round(seconds * RATE))).astype(np.float32)


def test_the_word_is_found_at_its_sample_under_a_louder_than_silence_answer() -> None:
    clip = word()
    recording = answer(3.0)
    recording[12345 : 12345 + len(clip)] += clip
    at, score = locate(recording, clip)
    assert at == 12345
    assert score > 0.9


def test_a_recording_without_the_word_scores_low() -> None:
    at, score = locate(answer(3.0), word())
    assert score < 0.2


def test_a_recording_shorter_than_the_clip_is_refused() -> None:
    with pytest.raises(ValueError, match="shorter"):
        locate(np.zeros(100, np.float32), word())


def test_voiced_bounds_are_the_first_and_one_past_the_last_sample_above_2_percent() -> None:
    samples = np.zeros(1000, np.float32)
    samples[100] = 1.0
    samples[200] = 0.03  # voiced: above 2 % of the peak
    samples[300] = 0.01  # the quiet tail: below
    assert voiced_bounds(samples) == (100, 201)


def test_a_silent_clip_has_no_bounds() -> None:
    with pytest.raises(ValueError, match="silent"):
        voiced_bounds(np.zeros(100, np.float32))


def test_trimmed_keeps_the_word_fades_its_end_and_silences_the_tail() -> None:
    clip = word()
    _, end = voiced_bounds(clip)
    out = trimmed(clip, RATE, fade=0.01)
    fade = round(0.01 * RATE)
    assert len(out) == len(clip)
    assert np.array_equal(out[:end], clip[:end])
    assert np.all(np.abs(out[end : end + fade]) <= np.abs(clip[end : end + fade]))
    assert not np.any(out[end + fade :])  # digital silence: nothing of the tail sounds
    assert np.any(clip[end + fade :])


def test_the_answer_falls_silent_at_its_last_audible_sample() -> None:
    recording = np.concatenate([answer(1.0), np.zeros(RATE, np.float32)])
    recording[RATE + 40] = 0.01  # a last click after a short gap: still the answer
    assert last_sound(recording, 100) == RATE + 41


def test_last_sound_looks_only_up_to_the_end_given() -> None:
    recording = np.concatenate([answer(1.0), np.zeros(RATE, np.float32), answer(1.0)])
    assert last_sound(recording, 0, 2 * RATE - 10) == RATE


def test_an_already_silent_recording_falls_silent_where_the_search_starts() -> None:
    recording = np.concatenate([answer(1.0), np.zeros(RATE, np.float32)])
    assert last_sound(recording, RATE + 500) == RATE + 500


def test_sound_below_minus_54_dbfs_is_silence() -> None:
    recording = np.full(RATE, 0.001, np.float32)
    assert last_sound(recording, 0) == 0


def test_time_to_silence_after_a_word_counts_from_its_end_past_the_fade() -> None:
    recording = np.concatenate([answer(1.0), np.zeros(RATE, np.float32)])
    assert time_to_silence(recording, RATE - 1600) == pytest.approx(0.1)  # 1600 samples on


def test_time_to_silence_is_none_when_the_answer_was_in_a_pause_after_the_word() -> None:
    recording = np.concatenate([answer(1.0), np.zeros(RATE, np.float32)])
    recording[RATE + 100] = 0.5  # the word's fade, inside the guard: not the answer
    assert time_to_silence(recording, RATE + 90) is None


def test_time_to_silence_after_speech_start_stops_at_the_speech_end() -> None:
    """The answer to the interrupting question, after it, is not the interrupted answer."""
    recording = np.concatenate([answer(1.0), np.zeros(RATE, np.float32), answer(1.0)])
    assert time_to_silence(recording, RATE // 2, within=RATE) == pytest.approx(0.5)
    assert time_to_silence(recording, RATE // 2, within=2 * RATE) == pytest.approx(2.0)
