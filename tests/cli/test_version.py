"""``desktop-assistant --version``: the installed package's version, as pyproject.toml says."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.helpers.processes import ROOT, python_env


def test_version_is_the_installed_one() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "--version"],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60, check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"desktop-assistant {declared}\n"), done.stderr
