"""The barge-in benchmark's talk-alone count: every barge-in is a self-interruption; a wake
word, speech onset or transcript counts as the assistant's own voice unless its turn is the
question's; the speech played is the sum of the pieces played whole; no minutes are refused.

The run itself (the whole assistant with Kokoro speaking for minutes) is not started here:
it is a measurement, not a test of the counting."""

from __future__ import annotations

import subprocess
import sys

from bench.barge_in_alone import Tally, own_voice
from bus.message import Message
from bus.messages import (
    BargeIn,
    Interrupted,
    ListenClosed,
    Speaking,
    SpeechStarted,
    Spoken,
    Transcript,
    WakeWordHeard,
)
from tests.helpers.processes import ROOT, python_env

BEGAN = 1000.0


def question(turn: str = "q") -> list[Message]:
    """The messages of a question asked and answered in two pieces (9.5 s of speech)."""
    return [
        WakeWordHeard(word="Okay Nabu", heard=BEGAN + 1, turn=turn, ts=BEGAN + 1),
        SpeechStarted(turn=turn, ts=BEGAN + 1.2),
        Transcript(text="Tell me about Rome.", lang="en", turn=turn, ts=BEGAN + 3),
        Speaking(speaking=True, turn=turn, ts=BEGAN + 4),
        Spoken(text="Rome began.", duration=4.0, turn=turn, ts=BEGAN + 8),
        Spoken(text="It grew.", duration=5.5, turn=turn, ts=BEGAN + 14),
        Speaking(speaking=False, turn=turn, ts=BEGAN + 14),
        ListenClosed(reason="timeout", follow_up=True, turn=turn, ts=BEGAN + 17),
    ]


def test_the_questions_own_wake_onset_and_transcript_are_the_users() -> None:
    assert own_voice(question(), {"q"}, BEGAN) == []


def test_every_barge_in_and_every_turn_no_question_started_are_its_own_voice() -> None:
    heard = question() + [
        BargeIn(reason="speech", interrupted="q", heard=BEGAN + 9, turn="own", ts=BEGAN + 9),
        SpeechStarted(turn="own", ts=BEGAN + 9),
        Transcript(text="Rome began", lang="en", turn="own", ts=BEGAN + 10),
        WakeWordHeard(word="Okay Nabu", heard=BEGAN + 12, turn="woken", ts=BEGAN + 12),
        BargeIn(reason="wake", interrupted="q", heard=BEGAN + 12, turn="q", ts=BEGAN + 12.1),
    ]
    found = own_voice(heard, {"q"}, BEGAN)
    assert [(e["kind"], e["turn"], e["at_s"]) for e in found] == [
        ("barge_in", "own", 9.0), ("speech_started", "own", 9.0), ("transcript", "own", 10.0),
        ("wake", "woken", 12.0), ("barge_in", "q", 12.1),
    ]
    assert found[0]["reason"] == "speech" and found[2]["text"] == "Rome began"


def test_the_tally_sums_the_speech_played_and_counts_unheard_questions_apart() -> None:
    tally = Tally()
    tally.add(question(), "Rome?", "q", True, BEGAN)
    cut = question("r") + [Interrupted(played="Rome began.", cut=True, silent=BEGAN + 9,
                                       turn="r", ts=BEGAN + 9)]
    tally.add(cut, "Rome again?", "r", True, BEGAN)
    woken_only = question("s")[:1]
    tally.add(woken_only, "Ocean?", "s", False, BEGAN)
    assert tally.spoken_s == 19.0
    assert [(a["turn"], a["spoken_s"], a["interrupted"]) for a in tally.answers] == [
        ("q", 9.5, False), ("r", 9.5, True)]
    assert tally.unheard == 1
    assert tally.own_voice == []  # the unanswered question's wake word was the user's
    assert tally.counts() == {"barge_in": 0, "wake": 0, "speech_started": 0, "transcript": 0}


def test_no_minutes_are_refused_before_anything_starts() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.barge_in", "--talk-alone", "0"],
                          cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--talk-alone needs more than 0 minutes" in done.stderr
