"""Benchmark: voice-to-voice latency of the whole assistant, stage by stage.

    python -m bench.turn [--windows 0.5,0.8] [--runs 2] [--set TABLE.KEY=VALUE ...]
                         [--json FILE] [--plot FILE.png] [--label NAME]

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
once (start-up time until every service reports ready, and memory per
service are measured then), and every question is asked ``--runs`` times.
``--set`` changes any config key for the whole run (``--set
dialogue.speculative=false``), to measure one lever at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from bench.ear import Ear, hear_exchange, resample_to_ear
from bench.turn_stages import TurnRecord, summarize
from bus.messages import Speaking, SpeechStarted, TraceMark
from services.speaker.pcm import TONE_SECONDS
from tests.helpers import llm_chunks
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.speech import CACHE, read_wav, spoken

QUESTIONS = [
    ("What time is it?", "It is a quarter past ten in the morning."),
    ("What's the weather like today?", "It is sunny and mild, about twenty degrees."),
    ("Tell me a joke.", "I would tell you a chemistry joke, but I would get no reaction."),
    ("How far is the moon from the earth?", "About three hundred and eighty thousand kilometres."),
    ("Who wrote the novel Pride and Prejudice?", "Jane Austen wrote it, in eighteen thirteen."),
    ("What is the capital of Australia?", "The capital of Australia is Canberra."),
    ("How many minutes are there in a day?", "There are one thousand four hundred and forty."),
    ("Could you tell me what the weather will be like in Rome tomorrow?",
     "Tomorrow in Rome it will be cloudy, with some rain in the evening."),
    ("Turn on the light in the kitchen, please.", "Sorry, I cannot control the lights yet."),
    ("Please remind me to call my sister tomorrow at nine in the morning.",
     "I cannot set reminders yet, but you could write it down."),
]
TONE_AND_GAP = TONE_SECONDS + 0.08
"""The acknowledgement tone and the silence after it (services/speaker/pcm.py)."""
TURN_TIMEOUT = 60.0


def parse_settings(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["dialogue.speculative=false"]`` → ``{"dialogue": {"speculative": False}}``."""
    tables: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        table, dot, name = key.partition(".")
        if not sep or not dot:
            raise SystemExit(f"--set {item!r}: expected TABLE.KEY=VALUE")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare string
        tables.setdefault(table, {})[name] = value
    return tables


def config_text(window: float, settings: dict[str, dict[str, Any]]) -> str:
    tables = {name: dict(values) for name, values in settings.items()}
    tables.setdefault("vad", {})["silence"] = window
    tables.setdefault("whisper", {}).setdefault("backend", "embedded")
    return tomli_w.dumps(tables)


def rss_mb(pid: int) -> tuple[float, float]:
    """RSS and PSS (shared pages divided among their users) of a process and its children."""
    rss = pss = 0.0
    for proc in [pid, *_children(pid)]:
        try:
            text = Path(f"/proc/{proc}/smaps_rollup").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("Rss:"):
                rss += int(line.split()[1]) / 1024
            elif line.startswith("Pss:"):
                pss += int(line.split()[1]) / 1024
    return round(rss, 1), round(pss, 1)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found + [g for c in found for g in _children(c)]


class Answers:
    """The scripted LLM's responder: the answer to the question last played, at once,
    streamed word by word as a server streams tokens."""

    def __init__(self) -> None:
        self.current = "Yes."

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        words = self.current.split(" ")
        return llm_chunks.text(*[w + " " for w in words[:-1]], words[-1])


async def ask(
    assistant: Assistant, rec: Recorder, ear: Ear, question: str, answer: str, toned: bool
) -> TurnRecord:
    assert assistant.card is not None and isinstance(assistant.llm.responder, Answers)
    wav = spoken(question)
    samples = resample_to_ear(*read_wav(wav))
    assistant.llm.responder.current = answer
    mark, started = ear.position(), time.time()
    play = asyncio.ensure_future(asyncio.to_thread(assistant.card.play, wav))
    began = await rec.until(SpeechStarted, lambda m: m.ts >= started, TURN_TIMEOUT)
    turn = began.turn
    await rec.until(Speaking, lambda m: m.turn == turn and not m.speaking, TURN_TIMEOUT)
    await play
    await rec.drain(0.2)  # late trace marks; the mic's deaf tail runs meanwhile
    messages = [m for m in rec.seen if m.turn == turn]
    record = TurnRecord.from_messages(question, messages)
    marks = {m.stage: m.ts for m in messages if isinstance(m, TraceMark)}
    if "first_sound" in marks and "first_answer" in marks:
        toned = marks["first_answer"] - marks["first_sound"] > TONE_SECONDS
    heard = hear_exchange(ear.samples(mark), samples, toned, TONE_AND_GAP)
    if heard is not None:
        record.heard_first_sound = heard.first_sound
        record.heard_first_speech = heard.first_speech
        record.mic_lag = record.speech_end - ear.epoch(mark + heard.question_end)
    rec.seen.clear()
    await rec.drain(0.5)  # the deaf tail (0.3 s) and a margin before the next question
    return record


async def run_questions(
    assistant: Assistant, runs: int, toned: bool, log: Any
) -> list[TurnRecord]:
    assert assistant.card is not None
    ear = Ear(assistant.card).start()
    records = []
    try:
        async with Recorder(assistant, "bench") as rec:
            await rec.drain(1.0)
            for run in range(runs):
                for question, answer in QUESTIONS:
                    record = await ask(assistant, rec, ear, question, answer, toned)
                    records.append(record)
                    print(f"  run {run + 1} {question[:40]!r}: {record.line()}", file=log,
                          flush=True)
    finally:
        ear.stop()
    return records


def bench_window(
    window: float, settings: dict[str, dict[str, Any]], runs: int, log: Any
) -> dict[str, Any]:
    config = config_text(window, settings)
    toned = settings.get("audio", {}).get("ack_tone", True)
    assistant = Assistant(config=config)
    try:
        assistant.start(timeout=300)
        ready = {n: round(t - assistant.started_at, 2) for n, t in assistant.ready_at.items()}
        assistant.llm.responder = Answers()
        records = asyncio.run(run_questions(assistant, runs, toned, log))
        memory = {name: rss_mb(proc.pid) for name, proc in assistant.processes.items()}
    except BaseException:
        print(assistant.logs(), file=sys.stderr)
        raise
    finally:
        assistant.close()
    return {
        "window": window,
        "config": config,
        "startup_s": {"services": ready, "all": max(ready.values())},
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
    parser.add_argument("--runs", type=int, default=2, help="times each question is asked")
    parser.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE")
    parser.add_argument("--label", default="", help="a name for this run in the JSON and plot")
    parser.add_argument("--json", type=Path, help="write every figure and turn here")
    parser.add_argument("--plot", type=Path, help="write the per-stage plot (PNG) here")
    args = parser.parse_args()
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE))
    settings = parse_settings(args.set)
    windows = [float(w) for w in args.windows.split(",")]
    results = []
    for window in windows:
        print(f"window {window} s {args.set}", file=sys.stderr, flush=True)
        result = bench_window(window, settings, args.runs, sys.stderr)
        result["label"] = args.label
        result["load_average"] = [round(x, 2) for x in os.getloadavg()]
        results.append(result)
        print_result(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.plot:
        from bench.turn_plot import plot

        plot(results, args.plot)


def print_result(result: dict[str, Any]) -> None:
    summary = result["summary"]
    print(f"\n== {result['label'] or 'run'}: window {result['window']} s, "
          f"{summary['turns']} turns, load average {result['load_average']}")
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
