"""Speaking benchmark: Kokoro's load time and real-time factor, and the time from a sentence
arriving on the bus to its first sample reaching the sound device.

    python -m bench.speaking [--runs 5] [--json]

The device is the tests' virtual sound card (a PulseAudio null sink); the TTS
service runs as its own process with its own broker, as in production. Target
on the 2-core development machine: first audio of a short first sentence
within 0.4 s of its arrival.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from typing import Any

from bus.client import Bus
from bus.message import new_id
from bus.messages import Speaking, SpeakRequest, Spoken
from services.tts.kokoro.voice import open_kokoro, warm_up
from settings import Config
from tests.helpers.soundcard import SoundCard
from tests.helpers.speaker import CACHE, RunningTTS

SHORT = "Sure, here it is."
LONG = (
    "The weather in Rome is sunny today with a light wind from the sea and a high of twenty "
    "two degrees, so it is a good afternoon for a walk along the river before the evening."
)
RTF_TEXTS = {"short": SHORT, "clause": "The weather in Rome is sunny today,", "long": LONG}


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(statistics.median(ordered), 3),
        "min": round(ordered[0], 3),
        "max": round(ordered[-1], 3),
    }


def bench_model(runs: int) -> dict[str, Any]:
    load, warm = [], []
    voice = None
    peak_mb = 0.0
    for _ in range(runs):
        started = time.perf_counter()
        voice = open_kokoro(Config())
        loaded = time.perf_counter()
        warm_up(voice)
        load.append(loaded - started)
        warm.append(time.perf_counter() - loaded)
        if not peak_mb:  # after one load, as in the service (later loads add garbage)
            peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert voice is not None
    rtf: dict[str, Any] = {}
    for name, text in RTF_TEXTS.items():
        ratios, seconds = [], 0.0
        for _ in range(runs):
            started = time.perf_counter()
            samples = voice.synthesize(text, "en")
            seconds = len(samples) / voice.sample_rate
            ratios.append((time.perf_counter() - started) / seconds)
        rtf[name] = {"audio_s": round(seconds, 2), **summary(ratios)}
    return {"load_s": summary(load), "warm_s": summary(warm), "rtf": rtf, "peak_mb": round(peak_mb)}


async def first_audio(bus: Bus, text: str) -> tuple[float, float]:
    """Seconds to the first sample, and seconds of silence between the pieces (stalls)."""
    turn = new_id()
    started = time.time()
    bus.publish(SpeakRequest(text=text, final=True, turn=turn))
    first = played = 0.0
    while True:
        msg = await bus.recv(timeout=60)
        if msg is None:
            raise TimeoutError(f"turn {turn} did not finish")
        if msg.turn != turn:
            continue
        if isinstance(msg, Speaking) and msg.speaking:
            first = time.time()
        elif isinstance(msg, Spoken):
            played += msg.duration
        elif isinstance(msg, Speaking):
            return first - started, max(0.0, time.time() - first - played)


def bench_first_audio(runs: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with SoundCard() as card:
        for tone in (False, True):
            running = RunningTTS("kokoro", card, f"[audio]\nack_tone = {str(tone).lower()}\n")
            try:
                running.start()
                for name, text in (("short", SHORT), ("long", LONG)):

                    async def body(bus: Bus, text: str = text) -> list[tuple[float, float]]:
                        return [await first_audio(bus, text) for _ in range(runs)]

                    key = f"{name}{'_with_tone' if tone else ''}"
                    measured = running.session(body)
                    results[key] = summary([first for first, _ in measured])
                    results[key]["stalls"] = summary([stall for _, stall in measured])
            finally:
                running.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.speaking", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE))
    report = {
        "model": bench_model(args.runs),
        "say_to_first_audio_s": bench_first_audio(args.runs),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(report))
        return
    model = report["model"]
    print(f"Kokoro load {model['load_s']['median']} s, warm-up {model['warm_s']['median']} s, "
          f"peak RSS {model['peak_mb']} MB")
    for name, row in model["rtf"].items():
        print(f"  real-time factor, {name} ({row['audio_s']} s of audio): {row['median']}")
    for name, row in report["say_to_first_audio_s"].items():
        print(f"  SpeakRequest -> first sample on the device, {name}: median {row['median']} s "
              f"(min {row['min']}, max {row['max']}); silence between pieces: median "
              f"{row['stalls']['median']} s")
    print(f"  ({report['cpus']} CPUs, load average {report['load_average']})")


if __name__ == "__main__":
    main()
