"""Wyoming text to speech benchmark: the time from ``synthesize`` sent by a Wyoming client
(the wyoming package's own, as Home Assistant uses it) to the first ``audio-chunk`` it
receives, beside the local speaker's time from a SpeakRequest to its first sample on the
sound device.

    python -m bench.wyoming [--runs 8] [--json]

One broker, one TTS process (Kokoro) and the Wyoming server, as in production; the
local path plays on the tests' virtual sound card (a PulseAudio null sink). The two
paths alternate run by run so that both see the same load. The acknowledgement tone is
off: it would make the local figure the tone's, not the voice's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import time
from typing import Any

from wyoming.audio import AudioChunk
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize, SynthesizeVoice

from bench.speaking import first_audio
from bus.client import Bus
from bus.messages import Heartbeat
from tests.helpers.ports import free_port
from tests.helpers.processes import Process
from tests.helpers.soundcard import SoundCard
from tests.helpers.speaker import CACHE, RunningTTS

SENTENCES = {
    "short": "Sure, here it is.",
    "clause": "The weather in Rome is sunny today,",
    "sentence": "The kitchen light is now switched off, and the heating is set to twenty degrees.",
}


def percentiles(values: list[float]) -> dict[str, float]:
    """p50 and p95 by nearest rank (with few runs, p95 is the largest but one or the largest)."""
    ordered = sorted(values)

    def rank(p: float) -> float:
        return round(ordered[max(0, math.ceil(p * len(ordered)) - 1)], 3)

    return {"p50": rank(0.50), "p95": rank(0.95), "runs": len(ordered)}


async def wyoming_first_chunk(port: int, text: str) -> float:
    """Seconds from ``synthesize`` written to the first ``audio-chunk`` read; the rest of the
    stream is read to its end so that the next run starts on an idle speaker."""
    client = AsyncTcpClient("127.0.0.1", port)
    await client.connect()
    try:
        started = time.perf_counter()
        await client.write_event(Synthesize(text=text, voice=SynthesizeVoice(name="en")).event())
        first = 0.0
        async with asyncio.timeout(60):
            while (event := await client.read_event()) is not None:
                if AudioChunk.is_type(event.type) and not first:
                    first = time.perf_counter() - started
                if event.type in ("audio-stop", "error"):
                    break
        if not first:
            raise RuntimeError(f"no audio for {text!r}: {event}")
        return first
    finally:
        await client.disconnect()


def measure(runs: int) -> dict[str, Any]:
    port = free_port()
    config = f"[audio]\nack_tone = false\n[wyoming]\nenabled = true\nport = {port}\n"
    with SoundCard() as card:
        running = RunningTTS("kokoro", card, config)
        wyoming: Process | None = None
        try:
            running.start()
            wyoming = Process("services.wyoming", *running.folder.args(), log_dir=running.logs,
                              env=running.env())

            async def body(bus: Bus) -> dict[str, dict[str, list[float]]]:
                await bus.wait_for(Heartbeat, lambda h: h.service == "wyoming"
                                   and h.state == "ready", timeout=60)
                times: dict[str, dict[str, list[float]]] = {}
                for name, text in SENTENCES.items():
                    row = times[name] = {"local": [], "wyoming": []}
                    await first_audio(bus, text)  # the first of each text fills caches: not counted
                    await wyoming_first_chunk(port, text)
                    for _ in range(runs):
                        row["local"].append((await first_audio(bus, text))[0])
                        row["wyoming"].append(await wyoming_first_chunk(port, text))
                return times

            times = running.session(body)
        finally:
            if wyoming is not None:
                wyoming.stop()
            running.close()
    return {name: {path: percentiles(values) for path, values in row.items()}
            for name, row in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.wyoming", description=__doc__)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE))
    figures = measure(args.runs)
    report = {
        "first_audio_s": figures,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }
    if args.json:
        print(json.dumps(report))
        return
    for name, row in figures.items():
        local, wyoming = row["local"], row["wyoming"]
        print(f"{name} ({SENTENCES[name]!r}): local SpeakRequest -> first sample p50 "
              f"{local['p50']} s, p95 {local['p95']} s; Wyoming synthesize -> first chunk p50 "
              f"{wyoming['p50']} s, p95 {wyoming['p95']} s ({local['runs']} runs each)")
    print(f"({report['cpus']} CPUs, load average {report['load_average']}, {report['date']})")


if __name__ == "__main__":
    main()
