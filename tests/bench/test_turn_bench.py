"""``bench/turn.py --replot`` recomputes the figures from recorded turns, and the figures in
``docs/performance.md`` are the ones this version computes from the run they cite."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers.processes import ROOT, python_env


def test_the_documented_voice_to_voice_figures_come_from_the_recorded_run() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.turn", "--replot", "docs/performance-turn.json"],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    heard = re.findall(
        r"^== (\w+): window ([\d.]+) s.*?"
        r"heard: first answer speech +p50 ([\d.]+) s +p95 ([\d.]+) s",
        out, flags=re.M | re.S,
    )
    assert {(name, window) for name, window, _, _ in heard} == {
        ("before", "0.5"), ("after", "0.5"), ("before", "0.8"), ("after", "0.8")}
    docs = (ROOT / "docs" / "performance.md").read_text()
    results = docs[docs.index("### Results"):docs.index("### What was changed")]
    for name, window, p50, p95 in heard:
        assert f"{float(p50):.2f} / {float(p95):.2f}" in results, (name, window, p50, p95)
