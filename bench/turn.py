"""Benchmark: voice-to-voice latency of the whole assistant, stage by stage.

    python -m bench.turn [--windows 0.5,0.8] [--runs 2] [--rounds 1] [--wake]
                         [--set TABLE.KEY=VALUE ...] [--variant NAME:TABLE.KEY=VALUE,... ...]
                         [--json FILE] [--plot FILE.png] [--replot FILE.json ...]

Every Procfile service runs as its own process (``tests/helpers/assistant.py``)
with the embedded models (Silero, Whisper tiny.en, Kokoro-82M int8), the
scripted OpenAI-compatible server answering at once with one short sentence,
and the virtual sound card as mic and speaker. Each question, spoken by
Kokoro, is played into the sink with ``paplay``; the mic records the sink's
monitor, and the answer is played into the same sink. A recording of that
monitor (``bench/ear.py``) gives the honest figure: from the question's last
voiced sample to the answer's first sound (the acknowledgement tone, when it
plays) and to the first sample of the answer's speech, on one clock. The bus
messages of each turn give the stages (``bench/turn_stages.py``).

For each end-of-speech window (``[vad] silence``) the assistant is started
once per round (start-up time until every service reports ready, and
memory per service are measured then), and every question is asked
``--runs`` times. ``--set`` changes any config key for the whole run;
``--variant`` names a set of changes (``--variant
before:whisper.window=30,dialogue.speculative=false --variant after:``), and
the variants are measured in turn, round after round, so that the load of a
shared machine falls on all of them alike.

A variant with ``[listen] mode = "wake"`` says the wake word first ("Okay
Nabu. What time is it?", one clip) and, after each answer, waits until the mic
closes again, so that every question is one after the word, not a follow-up.
``--wake`` measures each variant twice, as given and so (``NAME+wake``, with
``[listen] follow_up = 1`` only so that the mic closes sooner), interleaved:
the figure after the wake word beside the one for ``always``, under the same
load. Either way the figures run from the end of the question's speech.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.ear import Ear, hear_exchange, resample_to_ear
from bench.processes import renice, rss_mb, wait_idle
from bench.turn_config import config_text, merge, parse_settings, parse_variant, with_wake
from bench.turn_questions import QUESTION_SETS, QUESTIONS, Question
from bench.turn_stages import FIRST_ANSWER, FIRST_SOUND, TurnRecord, summarize
from bench.wake import WORD
from bus.messages import ListenClosed, Speaking, SpeechStarted
from services.tts.pcm import TONE_SECONDS
from tests.helpers import llm_chunks
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.speech import CACHE, read_wav

TONE_AND_GAP = TONE_SECONDS + 0.08
"""The acknowledgement tone and the silence after it (services/tts/pcm.py)."""
TURN_TIMEOUT = 60.0


class Answers:
    """The scripted LLM's responder: the answer to the question last played, at once,
    streamed word by word as a server streams tokens."""

    def __init__(self) -> None:
        self.current = "Yes."

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        words = self.current.split(" ")
        return llm_chunks.text(*[w + " " for w in words[:-1]], words[-1])


async def ask(
    assistant: Assistant, rec: Recorder, ear: Ear, question: Question, toned: bool,
    wake: bool = False,
) -> TurnRecord:
    """``wake``: the wake word is said first, and the mic closes before the next question."""
    assert assistant.card is not None and isinstance(assistant.llm.responder, Answers)
    wav = question.wav(WORD if wake else "")
    samples = resample_to_ear(*read_wav(wav))
    assistant.llm.responder.current = question.answer
    mark, started = ear.position(), time.time()
    play = asyncio.ensure_future(asyncio.to_thread(assistant.card.play, wav))
    began = await rec.until(SpeechStarted, lambda m: m.ts >= started, TURN_TIMEOUT)
    turn = began.turn
    silent = await rec.until(Speaking, lambda m: m.turn == turn and not m.speaking,
                             TURN_TIMEOUT)
    await play
    await rec.drain(0.2)  # late trace marks; the mic's deaf tail runs meanwhile
    messages = [m for m in rec.seen if m.turn == turn]
    record = TurnRecord.from_messages(question.text, messages)
    stages = record.times
    if FIRST_SOUND in stages and FIRST_ANSWER in stages:
        toned = stages[FIRST_ANSWER] - stages[FIRST_SOUND] > TONE_SECONDS
    heard = hear_exchange(ear.samples(mark), samples, toned, TONE_AND_GAP)
    if heard is not None:
        record.heard_first_sound = heard.first_sound
        record.heard_first_speech = heard.first_speech
        record.mic_lag = record.speech_end - ear.epoch(mark + heard.question_end)
    if wake:  # the next question needs the word again: no follow-up
        await rec.until(ListenClosed, lambda m: m.ts > silent.ts, TURN_TIMEOUT)
    rec.seen.clear()
    await rec.drain(0.5)  # the deaf tail (0.3 s) and a margin before the next question
    return record


async def run_questions(
    assistant: Assistant, runs: int, toned: bool, log: Any, questions: list[Question],
    wake: bool = False,
) -> list[TurnRecord]:
    assert assistant.card is not None
    ear = Ear(assistant.card).start()
    records = []
    try:
        async with Recorder(assistant, "bench") as rec:
            await rec.drain(1.0)
            for run in range(runs):
                for question in questions:
                    record = await ask(assistant, rec, ear, question, toned, wake)
                    records.append(record)
                    print(f"  run {run + 1} {question.text[:40]!r}: {record.line()}", file=log,
                          flush=True)
    finally:
        ear.stop()
    return records


def run_once(
    window: float,
    settings: dict[str, dict[str, Any]],
    runs: int,
    nice: int,
    log: Any,
    questions: list[Question] = QUESTIONS,
) -> tuple[list[TurnRecord], dict[str, Any]]:
    """Start the assistant, ask every question ``runs`` times, measure it, stop it."""
    config = config_text(window, settings)
    toned = settings.get("audio", {}).get("ack_tone", True)
    wake = settings.get("listen", {}).get("mode") == "wake"
    assistant = Assistant(config=config)
    try:
        assistant.start(timeout=300)
        ready = {n: round(t - assistant.started_at, 2) for n, t in assistant.ready_at.items()}
        if nice:
            assert assistant.card is not None
            renice([os.getpid(), *assistant.card.pids,
                    *(p.pid for p in assistant.processes.values())], nice)
        assistant.llm.responder = Answers()
        records = asyncio.run(run_questions(assistant, runs, toned, log, questions, wake))
        memory = {name: rss_mb(proc.pid) for name, proc in assistant.processes.items()}
    except BaseException:
        print(assistant.logs(), file=sys.stderr)
        raise
    finally:
        assistant.close()
    return records, {"config": config, "ready": ready, "memory": memory, "nice": nice,
                     "load_average": [round(x, 2) for x in os.getloadavg()]}


def result_of(
    label: str, window: float, records: list[TurnRecord], starts: list[dict[str, Any]]
) -> dict[str, Any]:
    """Every round of one (variant, window), as one result."""
    ready = {name: statistics.median(s["ready"][name] for s in starts)
             for name in starts[0]["ready"]}
    memory = {name: tuple(statistics.median(s["memory"][name][k] for s in starts) for k in (0, 1))
              for name in starts[0]["memory"]}
    return {
        "label": label,
        "window": window,
        "config": starts[0]["config"],
        "rounds": len(starts),
        "nice": starts[0]["nice"],
        "busy_before_percent": [s.get("busy_before") for s in starts],
        "load_average": [s["load_average"] for s in starts],
        "startup_s": {"services": ready, "all": max(ready.values()),
                      "all_each_round": [max(s["ready"].values()) for s in starts]},
        "memory_mb": {
            "services": {n: {"rss": r, "pss": p} for n, (r, p) in memory.items()},
            "rss_total": round(sum(r for r, _ in memory.values())),
            "pss_total": round(sum(p for _, p in memory.values())),
        },
        "summary": summarize(records, window),
        "turns": [r.as_dict() for r in records],
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.turn", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", default="0.5,0.8",
                        help="end-of-speech windows to measure, seconds (default 0.5,0.8)")
    parser.add_argument("--runs", type=int, default=2,
                        help="times each question is asked per start (default 2)")
    parser.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                        help="a config change for every variant")
    parser.add_argument("--variant", action="append", default=[],
                        metavar="NAME:TABLE.KEY=VALUE,...",
                        help="a named set of config changes, measured side by side with the "
                        "others (default: one variant, 'run')")
    parser.add_argument("--rounds", type=int, default=1,
                        help="start every (variant, window) this many times, interleaved, so "
                        "that a changing load on the machine hits all of them alike")
    parser.add_argument("--nice", type=int, default=0,
                        help="once started, run the assistant, the sound server and this "
                        "benchmark at this niceness (negative needs root): on a machine "
                        "shared with other work, -10 stands for an otherwise idle one")
    parser.add_argument("--wait-idle", type=float, default=0, metavar="PERCENT",
                        help="before each start, wait (up to 15 min) until the CPUs are less "
                        "than PERCENT busy: figures from a machine that other work keeps "
                        "busy say little")
    parser.add_argument("--questions", choices=sorted(QUESTION_SETS), default="all",
                        help="all: the usual ten; local: only requests the local intents "
                        "answer (compare --variant llm:intents.mode=off --variant "
                        "local:intents.mode=prefer: the LLM's share of the turn); paused: ten "
                        "questions with a natural pause, in English, Italian and Japanese "
                        "(with --set intents.mode=off)")
    parser.add_argument("--wake", action="store_true",
                        help="measure every variant also with the wake word said before each "
                        "question (NAME+wake: [listen] mode = \"wake\"), interleaved")
    parser.add_argument("--json", type=Path, help="write every figure and turn here")
    parser.add_argument("--plot", type=Path, help="write the per-stage plot (PNG) here")
    parser.add_argument("--replot", type=Path, nargs="+", metavar="JSON",
                        help="only plot (and print) results written earlier by --json")
    args = parser.parse_args()
    if args.replot:
        results = [r for path in args.replot for r in json.loads(path.read_text())]
        for result in results:  # the figures again, as this version computes them
            turns = [TurnRecord(**turn) for turn in result["turns"]]
            result["summary"] = summarize(turns, result["window"])
    else:
        results = measure(args)
    for result in results:
        print_result(result)
    if args.json and not args.replot:
        args.json.write_text(json.dumps(results, indent=1))
    if args.plot:
        from bench.turn_plot import plot

        plot(results, args.plot)


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE))
    common = parse_settings(args.set)
    variants = with_wake([parse_variant(v) for v in args.variant] or [("run", {})], args.wake)
    windows = [float(w) for w in args.windows.split(",")]
    records: dict[tuple[str, float], list[TurnRecord]] = {}
    starts: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for number in range(args.rounds):
        for window in windows:
            for name, changes in variants:
                settings = merge(common, changes)
                print(f"round {number + 1}, window {window} s, {name}: {settings}",
                      file=sys.stderr, flush=True)
                busy = wait_idle(args.wait_idle, 900) if args.wait_idle else None
                got, start = run_once(window, settings, args.runs, args.nice, sys.stderr,
                                      QUESTION_SETS[args.questions])
                start["busy_before"] = busy
                records.setdefault((name, window), []).extend(got)
                starts.setdefault((name, window), []).append(start)
    return [result_of(name, window, records[name, window], starts[name, window])
            for window in windows for name, _ in variants]


def print_result(result: dict[str, Any]) -> None:
    summary = result["summary"]
    print(f"\n== {result['label']}: window {result['window']} s, {summary['turns']} turns "
          f"({summary['speculative_turns']} answered from the guess), "
          f"load average after each start {result['load_average']}")
    for name, row in summary["totals"].items():
        print(f"  {name:<34} p50 {row['p50']:.3f} s   p95 {row['p95']:.3f} s")
    print("  critical path, median seconds:")
    for name, row in summary["stages"].items():
        print(f"    {name:<32} p50 {row['p50']:.3f}   p95 {row['p95']:.3f}")
    startup = result["startup_s"]
    print(f"  start-up until all ready: {startup['all']} s {startup['services']}")
    memory = result["memory_mb"]
    print(f"  memory: RSS {memory['rss_total']} MB, PSS {memory['pss_total']} MB: "
          + ", ".join(f"{n} {m['rss']:.0f}" for n, m in memory["services"].items()))


if __name__ == "__main__":
    main()
