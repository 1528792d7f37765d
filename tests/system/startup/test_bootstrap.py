"""``./bootstrap`` parses, and refuses a Python older than 3.11 first, with the fix, before
it installs anything (a fake interpreter stands in for the old one)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.helpers.processes import ROOT

BOOTSTRAP = ROOT / "bootstrap"


def bootstrap(*args: str, python: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHON=python)
    return subprocess.run(
        ["bash", str(BOOTSTRAP), *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_the_script_parses() -> None:
    subprocess.run(["bash", "-n", str(BOOTSTRAP)], check=True, timeout=30)


def old_python(folder: Path, version: str) -> str:
    fake = folder / "python-old"
    fake.write_text(f"#!/bin/sh\necho {version}\n")
    fake.chmod(0o755)
    return str(fake)


def test_an_old_python_is_refused_with_the_fix_before_any_install(tmp_path: Path) -> None:
    done = bootstrap("setup", python=old_python(tmp_path, "3.9"))
    assert done.returncode == 3
    assert "needs Python 3.11 or newer" in done.stderr and "is 3.9." in done.stderr
    assert "sudo apt install python3.11 python3.11-venv" in done.stderr
    assert "pyenv install 3.11" in done.stderr
    assert "PYTHON=python3.11 ./bootstrap setup" in done.stderr
    assert "[2/4]" not in done.stdout  # nothing was installed: it stopped at the first step


def test_a_missing_python_is_named(tmp_path: Path) -> None:
    done = bootstrap("setup", python=str(tmp_path / "no-such-python"))
    assert done.returncode == 3 and "no Python at" in done.stderr


def test_python_3_11_and_3_12_pass(tmp_path: Path) -> None:
    for version in ("3.11", "3.12"):
        done = bootstrap("check-python", python=old_python(tmp_path, version))
        assert done.returncode == 0, done.stderr
        assert f"Python {version}" in done.stdout
