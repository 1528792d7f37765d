"""The benchmark reads a turn's stages as the tap does (bus/turns.py), by the same names."""

from __future__ import annotations

from bench.turn_stages import TurnRecord, critical_path
from bus.trace import TurnFold, as_dict
from tests.bus.recorded_turns import (
    CONFIRMED_STAGES,
    END,
    confirmed_voice_turn,
    tool_voice_turn,
)


def tapped(messages: list) -> dict[str, float]:
    fold = TurnFold()
    done = [timeline for msg in messages for timeline in fold.feed(msg, 0.0)]
    ((timeline),) = done
    stages: dict[str, float] = as_dict(timeline)["stages"]
    return stages


def test_the_benchmark_and_the_tap_give_the_same_stages_of_the_same_messages() -> None:
    for messages in (confirmed_voice_turn(), tool_voice_turn()):
        record = TurnRecord.from_messages("What time is it?", messages)
        assert record.times == tapped(messages)
        assert record.speech_end == END and record.text == "what time is it"
    assert TurnRecord.from_messages("q", confirmed_voice_turn()).times == CONFIRMED_STAGES


def test_the_critical_path_of_a_turn_answered_from_its_guess_reads_those_stages() -> None:
    record = TurnRecord.from_messages("What time is it?", confirmed_voice_turn())
    assert record.speculative and (record.stt_compute, record.tts_compute) == (0.05, 0.25)
    path = critical_path(record, window=0.5)
    steps = {name: round(seconds, 4) for name, seconds, _ in path}
    # The answer was synthesized before the window closed: the confirmation is on the path.
    assert steps["dialogue: transcript to commit"] == 0.01
    assert steps["audio out: device callback and buffer"] == round(0.6 - 0.52, 4)
    assert round(sum(steps.values()), 4) == CONFIRMED_STAGES["first_answer"]
