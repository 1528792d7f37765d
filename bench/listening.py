"""Benchmark: what listening costs, and how soon a question is text on the bus.

- VAD: Silero per 32 ms frame, both runners (``[vad] engine``).
- STT: the embedded faster-whisper tiny.en per utterance (short, 3 s, 6 s
  questions spoken by Kokoro): seconds, real-time factor, and whether the
  words came back, for beam sizes 1 and 5.
- End of speech to transcript: a real broker, the STT service and the mic
  service replaying a 3 s question in real time (``--wav``); the time from
  the last voiced frame (``speech_end``) to the Transcript arriving here,
  with the speculative transcription on and off. Target: the end-of-speech
  window plus 0.6 s.

    python -m bench.listening [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bus.client import Bus
from bus.messages import Transcript
from hearing.convert import decode_file
from hearing.vad import FRAME, RATE, load_scorer, to_float
from services.base.names import STT
from settings.schema import VadConfig, WhisperConfig
from tests.helpers.service_stack import Stack, wait_state
from tests.helpers.speech import read_wav, spoken, write_wav
from tests.helpers.words import words

QUESTIONS = {
    "short": "What time is it?",
    "3 s": "Could you tell me what the weather will be like in Rome tomorrow?",
    "6 s": "Please remind me to call my sister tomorrow at nine in the morning, "
    "and tell me whether it will rain.",
}


def pcm(text: str) -> bytes:
    return b"".join(decode_file(spoken(text)))


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "mean": statistics.fmean(ordered),
        "p50": ordered[len(ordered) // 2],
        "max": ordered[-1],
    }


def bench_vad(seconds: float = 20.0) -> dict[str, Any]:
    audio = np.concatenate([np.frombuffer(pcm(q), dtype="<i2") for q in QUESTIONS.values()])
    audio = np.resize(audio, round(seconds * RATE)).astype("<i2").tobytes()
    frames = [audio[i : i + 2 * FRAME] for i in range(0, len(audio) - 2 * FRAME + 1, 2 * FRAME)]
    out = {}
    for engine in ("lite", "onnx"):
        scorer = load_scorer(engine)
        costs = []
        for frame in frames:
            began = time.perf_counter()
            scorer(to_float(frame))
            costs.append((time.perf_counter() - began) * 1000)
        out[engine] = {"ms per frame": summary(costs), "frames": len(frames)}
    return out


def bench_stt(runs: int) -> dict[str, Any]:
    from hearing.stt.embedded import EmbeddedWhisper

    out: dict[str, Any] = {}
    for beam in (1, 5):
        began = time.perf_counter()
        config = WhisperConfig(backend="embedded", embedded_model="tiny.en", beam_size=beam)
        model = EmbeddedWhisper(config)
        row: dict[str, Any] = {"load + warm-up s": time.perf_counter() - began}
        for name, text in QUESTIONS.items():
            audio = pcm(text)
            duration = len(audio) / 2 / RATE
            times, correct = [], 0
            for _ in range(runs):
                began = time.perf_counter()
                result = model.transcribe_now(audio)
                times.append(time.perf_counter() - began)
                correct += words(result.text) == words(text)
            row[name] = {
                "audio s": duration,
                "stt s": summary(times),
                "rtf": statistics.fmean(times) / duration,
                "word for word": f"{correct}/{runs}",
            }
        out[f"beam {beam}"] = row
    return out


async def _latencies(stack: Stack, wav: Path, runs: int) -> list[float]:
    bus = Bus(stack.endpoints, "bench")
    try:
        bus.subscribe(Transcript.TOPIC)
        await bus.wait_connected()
        await wait_state(bus, STT, "ready", timeout=120)
        mic = stack.start("services.mic", "--wav", *[str(wav)] * runs)
        latencies = []
        while len(latencies) < runs:
            msg = await bus.recv(timeout=60)
            if msg is None:
                raise RuntimeError(f"no transcript; mic log:\n{mic.output()[-2000:]}")
            if isinstance(msg, Transcript):
                latencies.append(time.time() - msg.speech_end)
        return latencies
    finally:
        await bus.close()


def bench_end_to_end(runs: int, folder: Path) -> dict[str, Any]:
    samples, rate = read_wav(spoken(QUESTIONS["3 s"]))
    gap = np.zeros(round(2.5 * rate), dtype=np.float32)  # STT of one run ends before the next
    wav = write_wav(folder / "question.wav", np.concatenate([gap, samples, gap]), rate)
    window = VadConfig().silence
    out: dict[str, Any] = {"end-of-speech window s": window, "target s": window + 0.6}
    for speculative in (True, False):
        flag = str(speculative).lower()
        stack = Stack(f'[whisper]\nbackend = "embedded"\nspeculative = {flag}\n')
        try:
            stack.start("services.stt")
            latencies = asyncio.run(_latencies(stack, wav, runs))
        finally:
            stack.close()
        key = "speculative" if speculative else "after the window"
        out[key] = {"speech end → transcript s": summary(latencies)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.listening")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(".cache") / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    result = {
        "vad": bench_vad(),
        "stt (embedded tiny.en, int8, 2 threads)": bench_stt(args.runs),
        "end of speech → transcript (3 s question)": bench_end_to_end(args.runs, folder),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(_text(result))


def _text(value: Any, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if isinstance(item, dict) and set(item) == {"mean", "p50", "max"}:
                figures = ", ".join(f"{k} {v:.3f}" for k, v in item.items())
                lines.append(f"{pad}{key}: {figures}")
            elif isinstance(item, dict):
                lines.append(f"{pad}{key}:")
                lines.append(_text(item, indent + 1))
            else:
                lines.append(f"{pad}{key}: {item:.3f}" if isinstance(item, float) else
                             f"{pad}{key}: {item}")
        return "\n".join(lines)
    return f"{pad}{value}"


if __name__ == "__main__":
    main()
