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


def test_rounds_compare_the_project_with_pyzmq_round_by_round() -> None:
    from bench.bus import summarize

    def row(client: str, number: int, p50: float) -> dict[str, object]:
        return {"payload": "control 200 B", "client": client, "transport": "ipc",
                "p50_us": p50, "p99_us": 2 * p50, "msg_per_s": 1000, "lost": 0, "round": number}

    # Paired by round the ratios are 1.5, 1.05 and 1.1 (median 1.1); the ratio of the
    # medians (150 / 100) would be 1.5.
    rows = [row("project", 0, 150), row("pyzmq", 0, 100), row("project", 1, 210),
            row("pyzmq", 1, 200), row("project", 2, 110), row("pyzmq", 2, 100)]
    project, pyzmq = summarize(rows)
    assert "median p50   150.0 µs" in project
    assert "p50/pyzmq 1.10x (1.05-1.50)" in project
    assert "median p50   100.0 µs" in pyzmq and "pyzmq" not in pyzmq.split("ipc")[1]


def test_the_paired_benchmark_runs_both_clients_at_once_and_alternates_the_lead() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bus_paired", "--count", "30", "--rounds", "2", "--json"],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=180, check=True,
    )
    rows = json.loads(out.stdout)
    assert [row["first"] for row in rows] == ["project", "pyzmq"]
    for row in rows:
        for client in ("project", "pyzmq"):
            assert 0 < row[client]["p50_us"] <= row[client]["p99_us"], row
        assert row["ratio"] == round(row["project"]["p50_us"] / row["pyzmq"]["p50_us"], 3)
