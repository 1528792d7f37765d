"""The satellites and the Wyoming server idle by default (none configured, ``enabled =
false``): their processes start without the modules only the work needs (numpy, the
models' code, FastAPI, httpx: 15-28 MB of RSS each). The tools service loads the MCP
SDK (0.5 s) only when a ``[mcp.*]`` server is configured."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT, python_env

HEAVY = ("numpy", "onnxruntime", "fastapi", "uvicorn", "httpx", "faster_whisper", "mcp")


@pytest.mark.parametrize("service", ["satellites", "wyoming", "tools"])
def test_an_idle_service_starts_without_heavy_modules(service: str) -> None:
    probe = (
        f"import sys, services.{service}.__main__\n"
        f"print(' '.join(name for name in {HEAVY!r} if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=python_env(),
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == []
