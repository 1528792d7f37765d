"""Run the example tools (examples/tools/) directly, as the tools service would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.processes import ROOT

EXAMPLES = ROOT / "examples" / "tools"


def tool_env(**extra: str) -> dict[str, str]:
    """Our environment with this venv's python3 first on PATH (the scripts' shebang)."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.update(extra)
    return env


def run_example(script: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXAMPLES / script), *args],
        env=tool_env(**env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
