"""The wake word pairing benchmark's judges: a second opinion confirms only within its
reach, and every judge keeps one detection per word."""

from __future__ import annotations

import numpy as np

from bench.wake_pair import confirmed, either, passes
from hearing.wake import REFRACTORY


def trace(times: list[float], scores: list[float]) -> np.ndarray:
    return np.array([scores, times])


def test_a_mean_over_the_window_must_pass_the_cutoff() -> None:
    scores = trace([0.03, 0.06, 0.09, 0.12], [0.9, 0.9, 0.1, 0.9])
    assert list(passes(scores, 0.8, 1)) == [0.03, 0.06, 0.12]
    assert list(passes(scores, 0.8, 2)) == [0.06]
    assert list(passes(scores, 0.8, 5)) == []  # fewer scores than the window


def test_the_second_engine_confirms_only_within_its_look_back_and_wait() -> None:
    first = trace([2.0, 10.0, 20.0], [0.6, 0.6, 0.6])
    second = trace([1.2, 10.15, 20.5], [0.9, 0.9, 0.9])
    traces = {"a": first, "b": second}
    judge = confirmed(("a", 0.5, 1), ("b", 0.5, 1), 0.2)
    # 2.0 by the pass 0.8 s before; 10.0 by one 0.15 s after, at that later time;
    # 20.0 not: B passed 0.5 s after, past the wait.
    assert judge(traces) == [2.0, 10.15]
    assert confirmed(("a", 0.5, 1), ("b", 0.95, 1), 0.2)(traces) == []


def test_either_engine_hears_once_per_word() -> None:
    traces = {"a": trace([5.0], [0.9]), "b": trace([5.1, 5.0 + REFRACTORY + 1], [0.9, 0.9])}
    assert either(("a", 0.5, 1), ("b", 0.5, 1))(traces) == [5.0, 6.0 + REFRACTORY]
