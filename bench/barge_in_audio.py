"""Where the interrupting word and the answer's last sound lie in a recording of the sink.

The word and the answer are mixed into one null sink, so the recording of its
monitor holds both, summed, on one clock. The word is louder than the answer
(played at a quarter of full volume), but it overlaps it, so no threshold can
find where it starts: its known waveform can, by normalized cross-correlation
(:func:`locate`). The word is played cut right after its voiced end
(:func:`trimmed`), so that after that point whatever sounds in the recording
is the answer (:func:`last_sound`).
"""

from __future__ import annotations

import numpy as np

from bench.ear import AUDIBLE, RATE

VOICED = 0.02
"""A voiced sample is louder than 2 % of the clip's peak (as ``tests/helpers/speech.py``)."""
GUARD = 0.015
"""After the word's voiced end its 10 ms fade still sounds (and the resamplers ring a little):
the answer's last sound is looked for from this much later, the least a run can measure."""


def voiced_bounds(samples: np.ndarray, floor: float = VOICED) -> tuple[int, int]:
    """The first voiced sample and one past the last, as sample positions."""
    loud = np.flatnonzero(np.abs(samples) > floor * float(np.max(np.abs(samples))))
    if not loud.size:
        raise ValueError("the clip is silent")
    return int(loud[0]), int(loud[-1]) + 1


def trimmed(samples: np.ndarray, rate: int, fade: float = 0.01) -> np.ndarray:
    """The clip up to its voiced end, then a linear fade of ``fade`` seconds to digital
    silence (its quiet tail would otherwise still sound after the word has ended)."""
    _, end = voiced_bounds(samples)
    length = min(round(fade * rate), len(samples) - end)
    out = np.zeros_like(samples)
    out[:end] = samples[:end]
    out[end : end + length] = samples[end : end + length] * np.linspace(1, 0, length)
    return out


def locate(recording: np.ndarray, clip: np.ndarray) -> tuple[int, float]:
    """Where ``clip``'s first sample lies in ``recording`` (the lag of the largest normalized
    cross-correlation) and that correlation (1: the recording there is the clip, scaled)."""
    if len(recording) < len(clip):
        raise ValueError("the recording is shorter than the clip")
    size = 1 << (len(recording) + len(clip) - 1).bit_length()
    spectrum = np.fft.rfft(recording, size) * np.conj(np.fft.rfft(clip, size))
    lags = len(recording) - len(clip) + 1
    products = np.fft.irfft(spectrum, size)[:lags]
    energy = np.concatenate([[0.0], np.cumsum(recording.astype(np.float64) ** 2)])
    window = energy[len(clip) : len(clip) + lags] - energy[:lags]
    norm = np.sqrt(np.maximum(window, 1e-12) * float(np.sum(clip.astype(np.float64) ** 2)))
    scores = products / norm
    best = int(np.argmax(scores))
    return best, float(scores[best])


def last_sound(
    recording: np.ndarray, start: int, end: int | None = None, floor: float = AUDIBLE
) -> int:
    """One past the last sample louder than ``floor`` from ``start`` up to ``end`` (``start``
    when there is none: the recording was already silent there)."""
    loud = np.flatnonzero(np.abs(recording[start:end]) > floor)
    return start + int(loud[-1]) + 1 if loud.size else start


def time_to_silence(card: np.ndarray, start: int, within: int | None = None) -> float | None:
    """Seconds from ``start`` (a position in ``card``, the recording of what the card played)
    to the answer's last audible sample. ``within`` None: ``start`` is a word's end, in the
    same recording, so the search begins :data:`GUARD` later; otherwise it is the start of
    speech heard elsewhere, and the search ends ``within`` samples later (where the answer
    to that speech may begin). None when nothing of the answer sounded: it was in a pause."""
    search = start if within is not None else start + round(GUARD * RATE)
    silent = last_sound(card, search, None if within is None else start + within)
    return None if silent == search else (silent - start) / RATE
