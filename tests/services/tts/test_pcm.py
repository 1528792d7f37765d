"""PCM helpers: the silence before a synthesized piece's first sound, and after its last,
is trimmed."""

from __future__ import annotations

import numpy as np

from services.tts.pcm import LEAD_KEEP, TAIL_KEEP, trim_lead, trim_tail

RATE = 24000


def test_the_silence_before_the_first_sound_is_dropped_but_a_few_ms() -> None:
    sound = np.full(RATE // 10, 0.3, dtype=np.float32)
    samples = np.concatenate([np.zeros(RATE // 25, dtype=np.float32), sound])  # 40 ms lead
    trimmed = trim_lead(samples, RATE)
    assert len(trimmed) == len(sound) + round(LEAD_KEEP * RATE)
    assert np.array_equal(trimmed[-len(sound):], sound)


def test_a_piece_that_starts_at_once_or_is_all_silence_is_left_alone() -> None:
    loud = np.full(100, 0.5, dtype=np.float32)
    assert trim_lead(loud, RATE) is loud
    quiet = np.zeros(100, dtype=np.float32)
    assert trim_lead(quiet, RATE) is quiet


def test_the_silence_after_the_last_sound_is_dropped_but_a_few_ms() -> None:
    sound = np.full(RATE // 10, 0.3, dtype=np.float32)
    samples = np.concatenate([sound, np.zeros(RATE * 3 // 10, dtype=np.float32)])  # espeak's
    trimmed = trim_tail(samples, RATE)
    assert len(trimmed) == len(sound) + round(TAIL_KEEP * RATE)
    assert np.array_equal(trimmed[: len(sound)], sound)
    assert len(trim_tail(np.zeros(100, dtype=np.float32), RATE)) == 100  # all silence: kept
