"""``desktop-assistant listen``: publishes a ListenRequest, and says when nobody can hear it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from bus.client import Bus
from bus.messages import ListenRequest
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import ROOT, Process, python_env


def listen(config_folder: ConfigFolder) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "listen", *config_folder.args()],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=30,
    )


def test_without_a_broker_it_says_so(config_folder: ConfigFolder) -> None:
    result = listen(config_folder)
    assert result.returncode == 3
    assert "no bus broker answers" in result.stderr


def test_without_a_mic_it_says_so_after_asking(
    broker: Process, config_folder: ConfigFolder, tmp_path: Path
) -> None:
    async def body(bus: Bus) -> ListenRequest:
        bus.subscribe(ListenRequest.TOPIC)
        await bus.wait_path(bus)
        result = await asyncio.to_thread(listen, config_folder)
        assert result.returncode == 3
        assert "no mic service is running" in result.stderr
        msg = await bus.recv(timeout=5)
        assert isinstance(msg, ListenRequest)
        return msg

    request = with_buses(config_folder.endpoints, ["test"], body)
    assert request.src == "cli"
