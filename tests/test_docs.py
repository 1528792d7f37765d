"""The documented contract and config keys stay in step with the code."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from bus.registry import registered
from tests.helpers.processes import ROOT


def test_generated_docs_are_fresh() -> None:
    result = subprocess.run(
        [sys.executable, "docs/source/render.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_every_registered_topic_is_documented_and_in_the_diagram() -> None:
    doc = (ROOT / "docs" / "bus.md").read_text()
    topology = tomllib.loads((ROOT / "docs" / "source" / "topology.toml").read_text())
    flows = {flow["topic"] for flow in topology["flow"]}
    for topic in registered():
        assert f"### `{topic}`" in doc, topic
    assert flows == set(registered())
