"""Benchmark: voice-to-voice latency through a Wyoming satellite on loopback.

    python -m bench.satellite [--window 0.5] [--runs 2] [--questions 5] [--json FILE]

The real ``wyoming-satellite`` program (its own environment under ``.cache/``,
``tests/helpers/satellite.py``) streams a FIFO as its mic, without a wake word
of its own (``wake = false``: every speech is a question), into the
assistant's real processes (broker, embedded Whisper, Kokoro, the dialogue on
the scripted LLM answering at once, the satellites service). Each question,
spoken by Kokoro, is written into the FIFO in real time, 20 ms at a time, and
quiet after it, as a mic would deliver it; the clock notes when its last
voiced sample went in. The satellite's speaker command notes when the answer's
first sound reached it. The figure is the time between the two, on one
clock: the satellite's own output device is not part of it (the local mic's
figure from ``bench/turn.py`` includes the sound card both ways).

Run ``python -m bench.turn --windows 1.2 --runs 1`` in the same session for
the local mic's figure beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.turn import Answers
from bench.turn_questions import QUESTIONS
from tests.helpers.satellite_peer import LOUD
from tests.helpers.satellite_rooms import Rooms, served_rooms, speech
from tests.helpers.speech import CACHE

ROOM = "kitchen"
RATE = 16000
CHUNK = 320
"""Samples written at a time: 20 ms."""
ANSWER_TIMEOUT = 60.0


def last_voiced(pcm: bytes) -> int:
    """The index of the last sample louder than the speaker's notion of sound."""
    loud = np.flatnonzero(np.abs(np.frombuffer(pcm, "<i2").astype(np.int32)) > LOUD)
    return int(loud[-1]) if len(loud) else 0


def ask(rooms: Rooms, question: str) -> float:
    """Seconds from the question's last voiced sample going into the mic to the
    answer's first sound reaching the satellite's speaker command."""
    peer = rooms.peers[ROOM]
    before = len(peer.answers())
    rooms.wait_listening(ROOM)
    pcm = speech(question)
    end = last_voiced(pcm)
    start = time.time()
    voiced_in = 0.0
    position = 0
    while len(peer.answers()) == before:  # quiet after the question, until the answer
        chunk = pcm[2 * position: 2 * (position + CHUNK)] or bytes(2 * CHUNK)
        delay = start + position / RATE - time.time()
        if delay > 0:
            time.sleep(delay)  # the pace of a real mic
        peer.say(chunk, silence=0.0)
        if position <= end < position + CHUNK:
            voiced_in = time.time()
        position += CHUNK
        if time.time() - start > ANSWER_TIMEOUT:
            raise TimeoutError(f"no answer to {question!r} in {ANSWER_TIMEOUT:g} s")
    _, first = peer.answers()[before]
    return first - voiced_in


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.satellite", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--window", type=float, default=0.5,
                        help="end-of-speech window, [vad] silence (default 0.5 s)")
    parser.add_argument("--runs", type=int, default=2, help="times each question is asked")
    parser.add_argument("--questions", type=int, default=5,
                        help="how many of bench/turn.py's questions (default 5)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE))
    answers = Answers()
    figures = []
    with tempfile.TemporaryDirectory(prefix="bench-satellite-") as folder, \
            served_rooms(Path(folder), (ROOM,), "wake = false", answers,
                      config=f"[vad]\nsilence = {args.window}\n") as rooms:
        for run in range(args.runs):
            for question in QUESTIONS[: args.questions]:
                answers.current = question.answer
                seconds = ask(rooms, question.text)
                figures.append(seconds)
                print(f"  run {run + 1} {question.text[:40]!r}: {seconds:.3f} s", file=sys.stderr,
                      flush=True)
    load = [round(x, 2) for x in os.getloadavg()]
    summary = {"window": args.window, "turns": len(figures),
               "p50": round(statistics.median(figures), 3),
               "max": round(max(figures), 3), "load_average": load, "figures": figures}
    print(f"\n== satellite {ROOM}: window {args.window} s, {len(figures)} turns, "
          f"load average {load}\n  last voiced sample in -> first answer sound out: "
          f"p50 {summary['p50']:.3f} s, max {summary['max']:.3f} s")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
