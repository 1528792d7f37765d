"""The side-by-side benchmark counts both ends of turn the same way: a clip with a pause
that ends in two turns is cut in two, and a finished question's delay runs from the last
sample of its speech to its last turn's end."""

from __future__ import annotations

import numpy as np

from bench.endpointing import LEAD
from bench.pipecat_turn import summary
from hearing.vad import RATE


def test_two_turns_in_a_paused_clip_are_a_cut_and_delays_run_from_the_speech_end() -> None:
    speech = np.zeros(RATE, np.float32)  # what it holds does not matter here
    made = [{"lang": "it", "pause": 0.0, "audio": speech},
            {"lang": "it", "pause": 0.7, "audio": speech},
            {"lang": "it", "pause": 1.0, "audio": speech}]
    speech_end = round(LEAD * RATE) + RATE
    rows = summary(made, [[speech_end + 4000],  # the finished question, 0.25 s after
                          [speech_end - 8000, speech_end + 3200],  # its first half answered
                          [speech_end + 3200]])
    assert rows == {"it": {"clips": 2, "split": 1, "close": [0.25]}}
