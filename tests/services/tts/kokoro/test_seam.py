"""Matching the loudness of a streamed piece's rest to its head, on made-up signals."""

from __future__ import annotations

import numpy as np

from services.tts.kokoro.seam import FADE, HEAD_GAIN, HOP, MATCH, RAMP, join_rest, raise_head

RATE = 24000


def tone(level: float, frames: int) -> np.ndarray:
    t = np.arange(frames * HOP) / RATE
    return (level * np.sqrt(2) * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def level(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples))))


def test_the_head_is_raised_by_the_measured_shortfall() -> None:
    head = tone(0.1, 10)
    assert level(raise_head(head)) / level(head) == np.float32(HEAD_GAIN)
    assert 1.3 < HEAD_GAIN < 1.7  # 2.3-4.6 dB: what was measured, not a guess


def test_the_rest_starts_at_the_heads_level_and_eases_to_its_own() -> None:
    seam = 20 * HOP
    head = tone(0.1, 28)  # the head decoded 5 dB softer than the rest
    rest = tone(0.18, MATCH + 60)  # starts MATCH frames before the seam
    out = join_rest(head, rest, seam)
    assert len(out) == len(rest) - MATCH * HOP
    first, last = out[FADE : FADE + HOP], out[-HOP:]
    assert abs(level(first) / 0.1 - 1) < 0.1  # no step at the seam (unmatched: 80 %)
    assert abs(level(last) / 0.18 - 1) < 0.02  # the rest's own level once the ramp is over
    middle = out[(RAMP // 2) * HOP : (RAMP // 2 + 1) * HOP]
    assert 0.1 * 1.2 < level(middle) < 0.18 * 0.95  # eased, not switched


def test_a_rest_shorter_than_the_ramp_still_starts_at_the_heads_level() -> None:
    head, rest = tone(0.1, 28), tone(0.18, MATCH + 6)
    out = join_rest(head, rest, 20 * HOP)
    assert len(out) == 6 * HOP
    assert abs(level(out[FADE : FADE + HOP // 2]) / 0.1 - 1) < 0.15  # unmatched: 80 %


def test_levels_too_far_apart_to_be_the_voices_leave_the_rest_as_decoded() -> None:
    head, rest = tone(0.04, 28), tone(0.2, MATCH + 40)  # 14 dB: a dip, not the voice
    out = join_rest(head, rest, 20 * HOP)
    assert np.allclose(out[FADE:], rest[MATCH * HOP + FADE :])


def test_near_silence_at_the_seam_leaves_the_rest_as_decoded() -> None:
    head = np.zeros(28 * HOP, np.float32)  # a pause at the seam: nothing to match
    rest = tone(0.2, MATCH + 40)
    out = join_rest(head, rest, 20 * HOP)
    assert np.allclose(out[FADE:], rest[MATCH * HOP + FADE :])
    quiet_rest = np.zeros_like(rest)
    assert not join_rest(tone(0.1, 28), quiet_rest, 20 * HOP)[FADE:].any()


def test_the_head_hands_over_to_the_rest_without_a_click() -> None:
    head, rest = tone(0.2, 28), -tone(0.2, MATCH + 40)  # opposite phase: a cut would click
    out = join_rest(head, rest, 20 * HOP)
    joined = np.concatenate([head[: 20 * HOP], out])
    assert np.abs(np.diff(joined)).max() < 2 * np.abs(np.diff(head)).max()
