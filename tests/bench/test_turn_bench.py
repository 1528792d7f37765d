"""``bench/turn.py --replot`` recomputes the figures from recorded turns, and this version
computes the same voice-to-voice totals from the recorded run as the run itself wrote."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.turn_stages import TurnRecord, summarize
from tests.helpers.processes import ROOT, python_env

RECORDED = ROOT / "docs" / "performance-turn.json"
"""The run docs/performance.md cites: every turn and the figures computed from them."""


def test_the_recorded_run_replots() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.turn", "--replot", str(RECORDED)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_the_recorded_totals_are_the_ones_this_version_computes() -> None:
    results = json.loads(RECORDED.read_text())
    assert {(r["label"], r["window"]) for r in results} == {
        ("before", 0.5), ("after", 0.5), ("before", 0.8), ("after", 0.8)}
    for result in results:
        turns = [TurnRecord(**turn) for turn in result["turns"]]
        totals = summarize(turns, result["window"])["totals"]
        assert totals == result["summary"]["totals"], (result["label"], result["window"])
