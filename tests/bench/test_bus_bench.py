"""``bench/bus.py`` runs end to end (small counts) and reports every client it compares."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers.processes import ROOT, python_env

BURST = 300


def test_the_bus_benchmark_measures_every_client_payload_and_transport() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bus", "--count", "30", "--burst", str(BURST), "--json"],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=180, check=True,
    )
    rows = json.loads(out.stdout)
    cells = {(r["payload"], r["client"], r["transport"]) for r in rows}
    for payload in ("control 200 B", "audio 1 KB", "utterance 160 KB"):
        assert {(payload, "project", "ipc"), (payload, "pyzmq", "ipc"), (payload, "codec", "ipc"),
                (payload, "project", "tcp"), (payload, "pyzmq", "tcp"),
                (payload, "mosquitto", "tcp")} <= cells
    for row in rows:
        assert 0 < row["p50_us"] <= row["p99_us"], row
        burst = BURST if row["payload"] != "utterance 160 KB" else 200
        assert row["msg_per_s"] > 0 and 0 <= row["lost"] < burst, row
