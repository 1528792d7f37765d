"""The barge-in benchmark's figures: percentiles of the timed runs; the failures, the runs
that fell in a pause of the answer and those with no answer counted apart; its command line
refuses no runs."""

from __future__ import annotations

import subprocess
import sys

from bench.barge_in import summary
from bench.barge_in_run import ALREADY_SILENT, NOT_ASKED, Interruption
from tests.helpers.processes import ROOT, python_env


def run(seconds: float | None, failure: str = "") -> Interruption:
    return Interruption(0.0, seconds, 0.15, 0.3, 0.97, failure)


def test_only_timed_runs_make_the_percentiles_and_the_others_are_counted_by_kind() -> None:
    runs = [run(0.1 * n) for n in range(1, 11)]
    runs += [run(None, "no barge-in"), run(None, ALREADY_SILENT), run(None, ALREADY_SILENT),
             run(None, NOT_ASKED)]
    result = summary(runs)
    assert (result["runs"], result["failed"], result["in_a_pause"], result["not_asked"]) == (
        14, 1, 2, 1)
    figures = result["silent_after_s"]
    assert figures["n"] == 10
    assert figures["max"] == 1.0
    assert figures["p50"] == 0.55
    assert figures["p95"] == 0.955


def test_no_runs_is_refused_before_anything_starts() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.barge_in", "--runs", "0"], cwd=ROOT,
                          env=python_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--runs must be at least 1" in done.stderr
