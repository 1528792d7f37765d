"""The dialogue loop's own overhead per turn, with a scripted LLM and executor that answer at once.

    python -m bench.dialogue [--turns 200] [--check]

Runs the real processes (broker, dialogue, a scripted tool executor, the
scripted OpenAI-compatible server) and asks voice turns over the bus: plain
answers of four sentences, and answers after one tool round. The dialogue
service reports per turn, in its ``turn.done`` trace mark, the time it spent
that was not waiting on the LLM's HTTP client, on tool results or on an
earlier turn, both as wall time and as CPU time of its thread (wall time also
counts waiting for a CPU on a busy machine); this prints their percentiles.
Target: wall p95 under 5 ms (``--check`` fails above).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bus.client import Bus
from bus.message import new_id
from bus.messages import Heartbeat, Reply, TraceMark, Transcript
from services.base.names import DIALOGUE, SPEAKER, TOOLS
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.broker import wait_broker
from tests.helpers.processes import Process
from tests.helpers.tool_executor import tool

TARGET_P95_MS = 5.0
ANSWER = (
    "The weather today is mild. ",
    "Expect some sun in the afternoon, ",
    "with a light breeze. ",
    "Tomorrow looks similar. Enjoy your day!",
)


def start_llm(root: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.llm_server"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("listening "):
        raise RuntimeError(f"the scripted LLM server did not start: {line!r}")
    return proc, line.split()[1]


def script(url: str, responses: list[dict[str, Any]], default: dict[str, Any] | None) -> None:
    base = url.removesuffix("/v1")
    httpx.post(f"{base}/_reset", json={}, timeout=5).raise_for_status()
    body: dict[str, Any] = {"responses": responses}
    if default is not None:
        body["default"] = default
    httpx.post(f"{base}/_script", json=body, timeout=5).raise_for_status()


@dataclass
class Sample:
    """Per turn, in ms: the loop's overhead (wall, CPU) and the whole turn as the bench saw it."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)
    process_cpu: float = 0.0
    """The dialogue process's whole CPU time per turn, the HTTP client included."""


async def turns(bus: Bus, count: int) -> Sample:
    """Ask ``count`` voice turns one after the other."""
    sample = Sample()
    for _ in range(count):
        turn = new_id()
        bus.publish(Heartbeat(service=SPEAKER, pid=0, state="ready", version="bench"))
        reply = asyncio.ensure_future(bus.wait_for(Reply, lambda r, t=turn: r.turn == t, 10))
        done = asyncio.ensure_future(
            bus.wait_for(TraceMark, lambda m, t=turn: m.turn == t and m.stage == "turn.done", 10)
        )
        await asyncio.sleep(0)  # both waiters registered before the question goes out
        started = time.perf_counter()
        bus.publish(Transcript(text="What is the weather like?", lang="en", turn=turn))
        await reply
        sample.total.append((time.perf_counter() - started) * 1000)
        detail = (await done).detail
        found = dict(re.findall(r"(\w+)=([\d.]+)", detail))
        if "overhead_ms" not in found:
            raise RuntimeError(f"no overhead in {detail!r}")
        sample.wall.append(float(found["overhead_ms"]))
        sample.cpu.append(float(found["overhead_cpu_ms"]))
    return sample


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


async def measure(folder: ConfigFolder, llm_url: str, count: int, pid: int) -> dict[str, Sample]:
    bus = Bus(folder.endpoints, "bench")
    try:
        bus.subscribe(Reply.TOPIC, TraceMark.TOPIC)
        await bus.wait_connected()
        await bus.wait_for(Heartbeat, lambda h: h.service == DIALOGUE and h.state == "ready", 30)
        await bus.wait_for(Heartbeat, lambda h: h.service == TOOLS and h.state == "ready", 30)
        plain = c.text(*ANSWER)
        tool_round = c.tool_calls([c.call("now")])
        scenarios = {
            "plain answer": ([], plain),
            "one tool round": ([tool_round, plain] * (count + 20), None),
        }
        results = {}
        for name, (responses, default) in scenarios.items():
            script(llm_url, responses, default)
            await turns(bus, 20)  # warm up
            cpu = cpu_seconds(pid)
            results[name] = await turns(bus, count)
            results[name].process_cpu = (cpu_seconds(pid) - cpu) / count * 1000
        return results
    finally:
        await bus.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--check", action="store_true", help=f"fail if p95 > {TARGET_P95_MS} ms")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="da-bench-"))
    folder = ConfigFolder(root)
    llm, llm_url = start_llm(root)
    procs: list[Process] = []
    try:
        folder.write(f'llm = "{llm_url}"\n[dialogue]\nmodel = "m"\n')
        procs.append(Process("bus", *folder.args(), log_dir=root))
        asyncio.run(wait_broker(folder.endpoints))
        catalog = json.dumps([tool("now") | {"result": "12:00"}])
        procs.append(
            Process(
                "tests.helpers.tool_executor", *folder.args(), "--catalog", catalog, log_dir=root
            )
        )
        dialogue = Process(
            "services.dialogue", *folder.args(), "--log-level", "WARNING", log_dir=root
        )
        procs.append(dialogue)
        results = asyncio.run(measure(folder, llm_url, args.turns, dialogue.pid))
    finally:
        for proc in reversed(procs):
            proc.stop()
        llm.terminate()
        llm.wait(5)
    worst = 0.0
    print(f"dialogue loop overhead per turn, ms ({args.turns} voice turns each):")
    print(
        f"{'scenario':<16} {'p50':>6} {'p95':>6} {'max':>6}  {'CPU p50':>7} {'CPU p95':>7}"
        f"  {'process CPU':>11}  {'turn p50':>8}"
    )
    for name, sample in results.items():
        p95 = percentile(sample.wall, 95)
        worst = max(worst, p95)
        print(
            f"{name:<16} {statistics.median(sample.wall):6.2f} {p95:6.2f} {max(sample.wall):6.2f}"
            f"  {statistics.median(sample.cpu):7.2f} {percentile(sample.cpu, 95):7.2f}"
            f"  {sample.process_cpu:11.2f}  {statistics.median(sample.total):8.2f}"
        )
    print(
        "p50/p95/max: wall time in the loop, waits excluded; CPU: the loop's CPU time in the same"
        " windows; process CPU: all of the dialogue's CPU per turn, the HTTP client included;"
        " turn p50: question to reply as the bench sees it"
    )
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"target: p95 < {TARGET_P95_MS} ms -> {'met' if worst < TARGET_P95_MS else 'NOT met'}")
    return 1 if args.check and worst >= TARGET_P95_MS else 0


if __name__ == "__main__":
    sys.exit(main())
