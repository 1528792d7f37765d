"""``desktop-assistant listen``: publishes a ListenRequest, and says when nobody can hear it;
``--mode`` switches the mic's listen mode."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from bus.client import Bus
from bus.messages import Heartbeat, ListenModeRequest, ListenModeState, ListenRequest
from services.base.names import MIC
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import ROOT, Process, python_env


def listen(config_folder: ConfigFolder, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "listen", *args, *config_folder.args()],
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


ALWAYS_HINT = 'set [listen] mode = "wake" or "push"'


@pytest.mark.parametrize(
    ("mode", "running", "state", "code", "said"),
    [
        ("wake", "wake", "ready", 0, ""),  # the request opens the mic as the word does
        ("push", "push", "ready", 0, ""),
        ("wake", "wake", "degraded", 1, "the mic is degraded: no input device"),
        ("always", "always", "ready", 0, ALWAYS_HINT),
        # Switched since it started (the page, --mode): the mic's own mode counts.
        ("wake", "always", "ready", 0, ALWAYS_HINT),
        ("always", "push", "ready", 0, ""),
    ],
)
def test_what_it_says_to_a_mic_in_each_mode(
    broker: Process, config_folder: ConfigFolder, mode: str, running: str, state: str,
    code: int, said: str,
) -> None:
    """A stand-in mic answers the request with its heartbeat and the question of its mode
    with the mode it is in, as the mic service does."""
    config_folder.write(f'[listen]\nmode = "{mode}"\n')

    async def body(bus: Bus) -> subprocess.CompletedProcess[str]:
        bus.subscribe(ListenRequest.TOPIC)
        bus.subscribe(ListenModeRequest.TOPIC)
        await bus.wait_path(bus)
        command = asyncio.ensure_future(asyncio.to_thread(listen, config_folder))
        assert isinstance(await bus.recv(timeout=20), ListenRequest)
        bus.publish(Heartbeat(service=MIC, pid=1, state=state, version="t",
                              detail="no input device"))
        asked = await bus.recv(timeout=20)
        assert isinstance(asked, ListenModeRequest) and asked.mode == ""
        bus.publish(ListenModeState(mode=running, reply_to=asked.id))
        return await command

    result = with_buses(config_folder.endpoints, ["test"], body)
    assert result.returncode == code, result.stderr
    assert said in result.stderr if said else result.stderr == ""


@pytest.mark.parametrize(
    ("answer", "code", "said"),
    [
        ("", 0, ""),
        ("the wake word detector cannot load (no package)", 0, "listen mode: the wake word"),
    ],
)
def test_mode_switches_the_mic_and_prints_its_answer(
    broker: Process, config_folder: ConfigFolder, answer: str, code: int, said: str
) -> None:
    """A stand-in mic answers the request as the mic service does."""

    async def body(bus: Bus) -> tuple[ListenModeRequest, subprocess.CompletedProcess[str]]:
        bus.subscribe(ListenModeRequest.TOPIC)
        await bus.wait_path(bus)
        command = asyncio.ensure_future(asyncio.to_thread(listen, config_folder, "--mode",
                                                          "wake"))
        request = await bus.recv(timeout=20)
        assert isinstance(request, ListenModeRequest)
        bus.publish(ListenModeState(mode="wake", error=answer, reply_to=request.id))
        return request, await command

    request, result = with_buses(config_folder.endpoints, ["test"], body)
    assert request.mode == "wake"
    assert (result.returncode, result.stdout) == (code, "wake\n"), result.stderr
    assert said in result.stderr if said else result.stderr == ""


def test_mode_without_a_mic_or_with_a_bad_mode_says_so(
    broker: Process, config_folder: ConfigFolder
) -> None:
    result = listen(config_folder, "--mode", "push")
    assert result.returncode == 3 and "no mic service is running" in result.stderr
    result = listen(config_folder, "--mode", "loud")
    assert result.returncode == 2 and "invalid choice: 'loud'" in result.stderr
