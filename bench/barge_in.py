"""Benchmark: barge-in latency, from the interruption to the answer's audio falling silent.

    python -m bench.barge_in [--runs 20] [--echo-cancel | --room-word] [--json FILE]
    python -m bench.barge_in --talk-alone MINUTES [--json FILE]

The assistant runs whole (mic, STT, dialogue, speaker with Kokoro; every
process real) on the virtual sound card, in wake mode, with the scripted LLM
answering every question with a long answer (six sentences, about 25 s).
Each run asks "Okay Nabu. Tell me about the history of Rome.", waits on the
bus until the answer is audibly playing (its first sentence played in full,
``tts.spoken``; then 0, 0.35, 0.7 or 1.05 s more, in turn, so that the
interruption falls at different points of the answer), interrupts it, and
measures on the recordings of the card (``bench/ear.py``):

- default: the wake word, "Okay Nabu.", played into the sink the speaker
  plays into (the mic records that sink's monitor, as in
  ``tests/system/barge_in/test_wake_barge_in.py``); from the word's end (its
  last sample above 2 % of its peak) to the answer's last audible sample
  (-54 dBFS). The word and the answer are in one recording, on one clock.
  The word overlaps the answer, so it is found by its waveform (normalized
  cross-correlation, ``bench/barge_in_audio.py``), and it is played cut right
  after its voiced end, so that any sound after that is the answer's.
- ``--echo-cancel``: ``[audio] echo_cancel = true``, the speaker and the mic
  on two sinks joined by the simulated room (``tests/helpers/room.py``, as in
  ``test_echo_barge_in.py``), and a plain question said into the room; from
  the start of its speech (its first sample above 2 % of its peak, found by
  correlation in a recording of the mic's sink) to the answer's last audible
  sample in a recording of the speaker's sink. The two recordings are put on
  one clock by each recorder's estimate of the wall-clock time of its first
  sample (both ``parec`` with the same 20 ms latency: within about 10 ms).

A run fails to interrupt when no ``audio.barge_in`` names the answer's turn
within 10 s, or when the interrupting speech cannot be found in the
recording. Two kinds of run are counted apart and not timed: one whose
question goes unheard (no transcript in 30 s) has no answer to interrupt;
in one where nothing of the answer sounds after the word's end (its fade
and the resamplers' ringing, 15 ms, excepted) the word fell in a pause
between the pieces the speaker plays, and the answer was cut before the
next: there is no sound whose end could be read.
The bus's own view is kept beside the sound card's: the barge-in
message's time, and the fade's end as the speaker reports it
(``tts.interrupted`` ``silent``), both from the same start.

``--room-word [--word-gain DB] [--without-canceller]``: default settings in the simulated room (the
canceller then turns itself on, and only the wake word interrupts:
``[listen] barge_in``), and "Okay Nabu." said into the room, DB louder than
its recording; timed from the word's end, as the default. Each run also
gives the word's level over the answer's echo as the mic heard them
(``over_answer_db``: the word with the echo under it against the echo alone
in the second before; a word as loud as the answer reads +3 dB).

``--talk-alone MINUTES`` interrupts nothing: the assistant is set up as with
``--echo-cancel`` (the room, the canceller on) and asked one question after
another, each answered with a different long paragraph that Kokoro speaks
live (``bench/barge_in_answers.py``), until MINUTES of its speech have played
(the sum of ``tts.spoken`` ``duration``: a piece cut off by a barge-in is not
counted). Nobody speaks over the answers, so every ``audio.barge_in`` is a
self-interruption, and every wake word, speech onset or transcript of a turn
no question started was triggered by the assistant's own voice
(``bench/barge_in_alone.py``); each is listed with its time.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from bench.barge_in_alone import Tally, talk_alone
from bench.barge_in_run import ALREADY_SILENT, NOT_ASKED, Interruption, interrupt_runs
from bench.turn_stages import percentiles
from tests.helpers.speech import CACHE

WAKE_CONFIG = ('[listen]\nmode = "wake"\ntimeout = 4.0\nfollow_up = 3.0\n'
               '[wake]\nearcon = false\n[audio]\nvolume = 0.25\n')
"""As the wake barge-in test: no earcon (it would sound after the word, over the fade)."""
ECHO_CONFIG = ('[listen]\nmode = "wake"\ntimeout = 4.0\nfollow_up = 3.0\n'
               '[wake]\nearcon = false\n[audio]\nvolume = 0.5\necho_cancel = true\n'
               'echo_reference = "monitor"\n')
"""As the echo barge-in test."""
ROOM_CONFIG = ('[listen]\nmode = "wake"\ntimeout = 4.0\nfollow_up = 3.0\n'
               '[wake]\nearcon = false\n[audio]\nvolume = 0.5\n')
"""As the echo barge-in test's default: ``echo_cancel`` and ``barge_in`` left as shipped."""


def summary(runs: list[Interruption]) -> dict[str, Any]:
    """p50, p95 and max of the runs that interrupted, how many did not, and how many fell
    in a pause of the answer (no time to read)."""
    heard = [r.silent_after for r in runs if r.silent_after is not None]
    figures = percentiles(heard)
    figures["max"] = round(max(heard), 4) if heard else float("nan")
    paused = sum(r.failure == ALREADY_SILENT for r in runs)
    unasked = sum(r.failure == NOT_ASKED for r in runs)
    return {
        "runs": len(runs),
        "failed": len(runs) - len(heard) - paused - unasked,
        "in_a_pause": paused,
        "not_asked": unasked,
        "silent_after_s": figures,
        "barge_in_message_s": percentiles([r.barge_in for r in runs if r.barge_in is not None]),
        "reported_silent_s": percentiles([r.reported for r in runs if r.reported is not None]),
    }


def print_summary(result: dict[str, Any]) -> None:
    figures = result["silent_after_s"]
    print(f"\n== {result['mode']}: {result['runs']} runs, {result['failed']} not interrupted, "
          f"{result['in_a_pause']} fell in a pause of the answer (not timed), "
          f"{result['not_asked']} had no answer to interrupt")
    print(f"  {result['start']} to silence at the card: p50 {figures['p50']:.3f} s   "
          f"p95 {figures['p95']:.3f} s   max {figures['max']:.3f} s")
    if result.get("over_answer_db"):
        print(f"  the word over the answer's echo, at the mic: p50 "
              f"{result['over_answer_db']['p50']:+.1f} dB")
    for key, name in (("barge_in_message_s", "audio.barge_in on the bus"),
                      ("reported_silent_s", "fade end, as the speaker reports it")):
        print(f"  {name:<38} p50 {result[key]['p50']:.3f} s   p95 {result[key]['p95']:.3f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.barge_in", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="interruptions (default 20)")
    parser.add_argument("--echo-cancel", action="store_true",
                        help="echo cancellation on, a plain question interrupts")
    parser.add_argument("--room-word", action="store_true",
                        help="default settings in the room, the wake word interrupts")
    parser.add_argument("--word-gain", type=float, default=0.0, metavar="DB",
                        help="with --room-word: the word played this much louder")
    parser.add_argument("--without-canceller", action="store_true",
                        help="with --room-word: [audio] echo_cancel = false, to compare")
    parser.add_argument("--talk-alone", type=float, metavar="MINUTES",
                        help="no interruptions: count what MINUTES of the assistant's own "
                             "speech trigger, with echo cancellation on")
    parser.add_argument("--json", type=Path, help="write the figures and every run here")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.talk_alone is not None and not args.talk_alone > 0:
        parser.error("--talk-alone needs more than 0 minutes")
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE))
    # A stopped run (kill, a 40-minute --talk-alone cut short) still stops the assistant
    # and the sound server it started: SystemExit unwinds their context managers.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if args.talk_alone is not None:
        tally, seconds = talk_alone(ECHO_CONFIG, args.talk_alone, sys.stderr)
        result = alone_result(tally, seconds, args.talk_alone)
        print_alone(result)
    else:
        result = interruptions(args.echo_cancel, args.runs, args.room_word, args.word_gain,
                               args.without_canceller)
        print_summary(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


def interruptions(echo: bool, runs: int, room_word: bool = False,
                  gain_db: float = 0.0, without_canceller: bool = False) -> dict[str, Any]:
    if room_word:
        config = ROOM_CONFIG + ("echo_cancel = false\n" if without_canceller else "")
        mode = (f"room, {'no canceller' if without_canceller else 'defaults'}, wake word "
                f"{gain_db:+.0f} dB")
        interrupted = interrupt_runs(config, True, runs, sys.stderr, word=True, gain_db=gain_db)
    else:
        config = ECHO_CONFIG if echo else WAKE_CONFIG
        mode = "echo cancel, speech" if echo else "wake word"
        interrupted = interrupt_runs(config, echo, runs, sys.stderr)
    levels = [r.over_answer_db for r in interrupted if r.over_answer_db is not None]
    return {
        "mode": mode,
        "start": "speech start" if echo and not room_word else "word end",
        "over_answer_db": percentiles(levels) if levels else None,
        "config": config,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        **summary(interrupted),
        "all": [r.as_dict() for r in interrupted],
    }


def alone_result(tally: Tally, seconds: float, minutes: float) -> dict[str, Any]:
    return {
        "mode": "talk alone, echo cancel",
        "config": ECHO_CONFIG,
        "minutes_asked": minutes,
        "minutes_spoken": round(tally.spoken_s / 60, 3),
        "minutes_wall": round(seconds / 60, 3),
        "answers": len(tally.answers),
        "unheard_questions": tally.unheard,
        "self_interruptions": tally.counts()["barge_in"],
        "own_voice": tally.counts(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "own_voice_events": tally.own_voice,
        "all": tally.answers,
    }


def print_alone(result: dict[str, Any]) -> None:
    counts = result["own_voice"]
    print(f"\n== {result['mode']}: {result['minutes_spoken']:.2f} min of speech played in "
          f"{result['answers']} answers ({result['minutes_wall']:.2f} min in all), "
          f"{result['unheard_questions']} questions unheard")
    print(f"  self-interruptions (audio.barge_in): {result['self_interruptions']}")
    print(f"  wake word heard in its own voice:    {counts['wake']}")
    print(f"  speech onsets of its own voice:      {counts['speech_started']}")
    print(f"  transcripts of its own voice:        {counts['transcript']}")


if __name__ == "__main__":
    main()
