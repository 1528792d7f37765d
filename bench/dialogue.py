"""The dialogue loop's own overhead per turn, with a scripted LLM and executor that answer at once.

    python -m bench.dialogue [--turns 200] [--check]

Runs the real processes (broker, dialogue, a scripted tool executor, the
scripted OpenAI-compatible server) and asks voice turns over the bus: plain
answers of four sentences, and answers after one tool round. The dialogue
service reports per turn, in its ``turn.done`` trace mark, the time it spent
that was not waiting on the LLM's HTTP stream or on tool results; this
prints its percentiles. Target: p95 under 5 ms (``--check`` fails above).
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
from pathlib import Path
from typing import Any

import httpx

from bus.client import Bus
from bus.message import new_id
from bus.messages import Heartbeat, Reply, TraceMark, Transcript
from tests.conftest import ConfigFolder, wait_broker
from tests.helpers import llm_chunks as c
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


async def turns(bus: Bus, count: int) -> tuple[list[float], list[float]]:
    """Ask ``count`` voice turns one after the other: (overheads, whole turn times) in ms."""
    overheads, totals = [], []
    for _ in range(count):
        turn = new_id()
        bus.publish(Heartbeat(service="tts", pid=0, state="ready", version="bench"))
        reply = asyncio.ensure_future(bus.wait_for(Reply, lambda r, t=turn: r.turn == t, 10))
        done = asyncio.ensure_future(
            bus.wait_for(TraceMark, lambda m, t=turn: m.turn == t and m.stage == "turn.done", 10)
        )
        await asyncio.sleep(0)  # both waiters registered before the question goes out
        started = time.perf_counter()
        bus.publish(Transcript(text="What is the weather like?", lang="en", turn=turn))
        await reply
        totals.append((time.perf_counter() - started) * 1000)
        mark = await done
        found = re.search(r"overhead_ms=([\d.]+)", mark.detail)
        if found is None:
            raise RuntimeError(f"no overhead in {mark.detail!r}")
        overheads.append(float(found.group(1)))
    return overheads, totals


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


Results = dict[str, tuple[list[float], list[float], float]]


async def measure(folder: ConfigFolder, llm_url: str, count: int, pid: int) -> Results:
    bus = Bus(folder.endpoints, "bench")
    try:
        bus.subscribe(Reply.TOPIC, TraceMark.TOPIC)
        await bus.wait_connected()
        await bus.wait_for(Heartbeat, lambda h: h.service == "dialogue" and h.state == "ready", 30)
        await bus.wait_for(Heartbeat, lambda h: h.service == "tools" and h.state == "ready", 30)
        results: Results = {}
        plain = c.text(*ANSWER)
        script(llm_url, [], plain)
        await turns(bus, 20)  # warm up
        cpu = cpu_seconds(pid)
        overheads, totals = await turns(bus, count)
        results["plain answer"] = (overheads, totals, (cpu_seconds(pid) - cpu) / count * 1000)
        tool_round = c.tool_calls([c.call("now")])
        script(llm_url, [tool_round, plain] * (count + 20), None)
        await turns(bus, 20)
        cpu = cpu_seconds(pid)
        overheads, totals = await turns(bus, count)
        results["one tool round"] = (overheads, totals, (cpu_seconds(pid) - cpu) / count * 1000)
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
    print(f"{'scenario':<16} {'p50':>7} {'p95':>7} {'max':>7} {'CPU/turn':>9} {'turn p50':>9}")
    for name, (values, totals, cpu) in results.items():
        p95 = percentile(values, 95)
        worst = max(worst, p95)
        print(
            f"{name:<16} {statistics.median(values):7.2f} {p95:7.2f} {max(values):7.2f}"
            f" {cpu:9.2f} {statistics.median(totals):9.2f}"
        )
    print(
        "CPU/turn: the dialogue process's CPU time per turn (all of it, also the HTTP client's);"
        " turn p50: question to reply as the bench sees it"
    )
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"target: p95 < {TARGET_P95_MS} ms -> {'met' if worst < TARGET_P95_MS else 'NOT met'}")
    return 1 if args.check and worst >= TARGET_P95_MS else 0


if __name__ == "__main__":
    sys.exit(main())
