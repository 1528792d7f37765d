"""One exit status per condition, whatever the command (``desktop_assistant/exit_codes.py``)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from desktop_assistant.exit_codes import ExitCode
from tests.conftest import ConfigFolder
from tests.helpers.processes import ROOT, Process, python_env

NEEDING_A_SERVICE = {
    "ask": ["ask", "Hello"],
    "listen": ["listen"],
    "say": ["say", "Hello"],
    "volume": ["volume", "up"],
}


def start(folder: ConfigFolder, argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "desktop_assistant", *argv, *folder.args()],
        cwd=ROOT, env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finish(command: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait(5)
    return command.returncode, err


def test_a_missing_service_is_the_same_status_for_every_command(
    broker: Process, config_folder: ConfigFolder
) -> None:
    # All at once: each waits a few heartbeat periods for the service that is not there.
    running = {name: start(config_folder, argv) for name, argv in NEEDING_A_SERVICE.items()}
    done = {name: finish(command) for name, command in running.items()}
    assert {name: code for name, (code, _) in done.items()} == dict.fromkeys(
        NEEDING_A_SERVICE, ExitCode.UNAVAILABLE
    ), done
    for name, (_, err) in done.items():
        assert re.search(r"\bno (dialogue|mic|TTS) service\b", err), (name, err)


@pytest.mark.parametrize("name", sorted(NEEDING_A_SERVICE))
def test_no_broker_is_the_same_status_too(name: str, config_folder: ConfigFolder) -> None:
    code, err = finish(start(config_folder, NEEDING_A_SERVICE[name]))
    assert code == ExitCode.UNAVAILABLE and "no bus broker answers" in err, err


def test_the_table_in_the_docs_lists_every_status() -> None:
    text = (ROOT / "docs" / "running.md").read_text()
    rows = dict(re.findall(r"^\| (\d+) \| `(\w+)` \|", text, flags=re.MULTILINE))
    assert rows == {str(code.value): code.name for code in ExitCode}
