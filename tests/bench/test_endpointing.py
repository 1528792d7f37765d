"""The endpointing benchmark's count of questions answered in two."""

from __future__ import annotations

from bench.endpointing import answered_apart
from hearing.vad import RATE
from services.mic.resumption import RESUME_WINDOW


def test_a_cut_is_answered_in_two_only_when_the_rest_comes_after_the_answer() -> None:
    first = (1 * RATE, 2 * RATE, RATE // 2)  # (last voiced, closed, announced)
    soon = (0, 0, 2 * RATE + RATE // 4)  # the rest announced 0.25 s after the close
    late = (0, 0, 3 * RATE)  # 1 s after it
    assert not answered_apart([first], 0.55)  # one turn
    assert not answered_apart([first, soon], 0.55)  # it goes on with the question
    assert answered_apart([first, late], 0.55)  # the first half's answer was heard
    assert answered_apart([first, soon], 0.2)  # a faster answer is heard first
    assert answered_apart([first, (0, 0, 2 * RATE + round(RESUME_WINDOW * RATE))], 9.0)
