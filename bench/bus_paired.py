"""Benchmark: the project's client against raw pyzmq, both at once, turn by turn.

``bench/bus.py`` runs one client after the other; on a shared machine the
load moves between those runs more than the clients differ (its per-round
ratios of p50s spread from 0.84 to 1.55). Here one sender process alternates
between the two every millisecond: a raw ``send_multipart`` to a raw
``zmq.proxy`` and a project ``Bus.publish`` to the project's broker, each
read by its own receiver process (blocking pyzmq; ``bus.client.Bus`` on
uvloop). Both see the same moments of the machine, so the ratio of their
p50s is steady from round to round. Each receiver gets a message every 2 ms.
Which client goes first alternates by round, so the order favours neither.

    python -m bench.bus_paired [--count 2000] [--rounds 5] [--transport ipc] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bus import (
    DONE,
    WARMUP,
    endpoints,
    make_pair,
    percentiles,
    project_broker,
    raw_proxy,
    receiver,
)

SIZE = 200
BROKERS = {"project": project_broker, "pyzmq": raw_proxy}


def sender(
    order: list[str], wheres: dict[str, Any], count: int, seen: list[Any], done: Any
) -> None:
    sends = [make_pair(kind, wheres[kind], "tx")[0] for kind in order]
    payload = bytes(SIZE)
    while not all(event.is_set() for event in seen):
        for send in sends:
            send(WARMUP, payload)
        time.sleep(0.01)
    for _ in range(count):
        for send in sends:
            send(time.time_ns(), payload)
            time.sleep(0.001)
    while not done.wait(0.2):  # the end marker, until both receivers have it
        for send in sends:
            send(DONE, payload)


def one_round(order: list[str], transport: str, count: int) -> dict[str, dict[str, float]]:
    ctx = mp.get_context("spawn")
    folders = {kind: Path(tempfile.mkdtemp(prefix="da-paired-")) for kind in order}
    wheres = {kind: endpoints(transport, folders[kind]) for kind in order}
    brokers = [
        ctx.Process(
            target=BROKERS[kind], args=(wheres[kind]["pub"], wheres[kind]["sub"]), daemon=True
        )
        for kind in order
    ]
    seen = {kind: ctx.Event() for kind in order}
    outs = {kind: ctx.Queue() for kind in order}
    done = ctx.Event()
    receivers = [
        ctx.Process(target=receiver, args=(kind, wheres[kind], seen[kind], outs[kind]))
        for kind in order
    ]
    tx = ctx.Process(target=sender, args=(order, wheres, count, [seen[k] for k in order], done))
    try:
        for proc in (*brokers, *receivers, tx):
            proc.start()
        result = {}
        for kind in order:
            result[kind] = percentiles(outs[kind].get(timeout=300)[0])
        done.set()
        for proc in (tx, *receivers):
            proc.join(30)
        return result
    finally:
        for proc in (tx, *receivers, *brokers):
            if proc.is_alive():
                proc.kill()
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="paced messages per client")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--transport", choices=["ipc", "tcp"], default="ipc")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for number in range(args.rounds):
        order = ["project", "pyzmq"] if number % 2 == 0 else ["pyzmq", "project"]
        result = one_round(order, args.transport, args.count)
        ratio = result["project"]["p50_us"] / result["pyzmq"]["p50_us"]
        rows.append({"round": number, "first": order[0], **result, "ratio": round(ratio, 3)})
        if not args.json:
            print(
                f"round {number} ({order[0]} first)  project p50 {result['project']['p50_us']:6.1f}"
                f" p99 {result['project']['p99_us']:6.1f} µs   pyzmq p50"
                f" {result['pyzmq']['p50_us']:6.1f} p99 {result['pyzmq']['p99_us']:6.1f} µs"
                f"   p50 ratio {ratio:.3f}",
                flush=True,
            )
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        ratios = sorted(row["ratio"] for row in rows)
        print(
            f"project p50 / pyzmq p50 ({args.transport}, {SIZE} B): median "
            f"{statistics.median(ratios):.3f}x ({ratios[0]:.3f}-{ratios[-1]:.3f})"
        )


if __name__ == "__main__":
    main()
