"""How long a tool call takes: in the runner alone, and through the bus and the service.

    python -m bench.tools_latency [--calls N]

Starts its own broker and tools service on ipc sockets in a temporary folder,
with one tool (``true``). Prints p50/p95 in milliseconds: the runner (fork of
the sandbox wrapper, exec, reaping, one /proc scan at most) and a whole
ToolRequest → ToolResult round trip through the broker.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.messages import Heartbeat, ToolRequest, ToolResult
from services.base.names import TOOLS
from services.tools.runner import Runner
from settings.schema import ToolsConfig
from settings.toolfiles import load_tools

ROOT = Path(__file__).resolve().parents[1]


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, n={len(ms)}"


async def runner_alone(folder: Path, calls: int) -> list[float]:
    runner = Runner(load_tools(folder), folder / "tools", {}, ToolsConfig())
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        outcome = await runner.run("nothing", "{}")
        samples.append(time.perf_counter() - started)
        assert outcome.ok, outcome.content
    return samples


async def through_the_bus(endpoints: Endpoints, calls: int) -> list[float]:
    bus = Bus(endpoints, "bench")
    try:
        bus.subscribe(ToolResult.TOPIC)  # before the first call: its answer must not beat us
        await bus.wait_connected(timeout=15)
        await bus.wait_for(Heartbeat, lambda h: h.service == TOOLS and h.state == "ready", 30)
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            result = await bus.request(
                ToolRequest(name="nothing", arguments="{}"),
                ToolResult,
                timeout=10,
            )
            samples.append(time.perf_counter() - started)
            assert result.ok, result.content
        return samples
    finally:
        await bus.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="da-bench-"))
    folder = root / "config"
    (folder / "tools").mkdir(parents=True)
    (folder / "tools" / "nothing.toml").write_text('description = "x"\ncommand = ["true"]\n')
    endpoints = Endpoints(pub=f"ipc://{root}/pub.sock", sub=f"ipc://{root}/sub.sock")
    (folder / "config.toml").write_text(
        f'[bus]\npub = "{endpoints.pub}"\nsub = "{endpoints.sub}"\n'
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m"]
    procs = [
        subprocess.Popen(
            [*cmd, name, "--config", str(folder)], cwd=ROOT, env=env, stderr=subprocess.DEVNULL
        )
        for name in ("bus", "services.tools")
    ]
    try:
        bus_samples = asyncio.run(through_the_bus(endpoints, args.calls))  # waits for ready
        print("runner alone:   ", percentiles(asyncio.run(runner_alone(folder, args.calls))))
        print("bus round trip: ", percentiles(bus_samples))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
