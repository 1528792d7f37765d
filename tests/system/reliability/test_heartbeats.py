"""A process that stops answering (SIGSTOP) is reported down within three heartbeat periods.

By the brain's ``/health/ready``, by the tap (a liveness line) and by
``desktop-assistant doctor``; once it runs again (SIGCONT) it is reported up.
Heartbeats every 0.5 s here, so three periods are 1.5 s.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant
from tests.helpers.processes import ROOT, python_env
from tests.helpers.tap import TapProcess, poll

PERIOD = 0.5
SLACK = 0.75
"""Polling and scheduling on a busy two-core machine."""


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    with Assistant(sound=False, services=["dialogue", "tools", "brain", "watchdog"]) as a:
        a.llm.default = c.text("ok")  # the doctor asks it a question: the dialogue works
        yield a


def readiness(assistant: Assistant) -> httpx.Response:
    return httpx.get(f"{assistant.brain_url}/health/ready", timeout=5)


def doctor(assistant: Assistant) -> dict[str, dict[str, str]]:
    done = subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "doctor", "--json", "--listen", "1.6",
         "--config", str(assistant.folder)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
    )
    return {row["name"]: row for row in json.loads(done.stdout)}


@pytest.mark.parametrize("name", ["dialogue", "tools", "watchdog"])
def test_a_stopped_process_is_reported_down_then_up(assistant: Assistant, name: str) -> None:
    tap = TapProcess(assistant.folder, "sys.")
    proc = assistant.processes[name]
    try:
        tap.wait(f"LIVENESS {name} up")
        poll(lambda: readiness(assistant).status_code == 200)
        os.kill(proc.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            in_brain = poll(lambda: readiness(assistant).json()["services"][name] == "down")
            in_tap = tap.wait(f"LIVENESS {name} down")
            ready = readiness(assistant).status_code
            rows = doctor(assistant)
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        assert in_brain - stopped < 3 * PERIOD + SLACK
        assert in_tap - stopped < 3 * PERIOD + SLACK
        assert rows[f"service {name}"]["status"] == "FAIL"
        assert {rows[f"service {other}"]["status"] for other in assistant.services
                if other != name} == {"ok"}
        assert ready == (503 if name in ("dialogue", "tools") else 200)  # what /ask needs
        tap.wait(f"LIVENESS {name} up")
        poll(lambda: readiness(assistant).json()["services"][name].startswith("ready"))
        assert doctor(assistant)[f"service {name}"]["status"] == "ok"
    finally:
        tap.close()
