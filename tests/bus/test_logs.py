"""The log level of a real process (``python -m bus``) from the flag, the environment and the
config (``bus/logs.py``)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from bus.endpoints import Endpoints
from tests.conftest import ConfigFolder
from tests.helpers.broker import wait_broker
from tests.helpers.processes import ROOT, python_env

TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "
STREAM = "{stream}"
"""Stands for the ``dev:inode`` of the broker's stderr file (what systemd sets)."""


def broker_log(
    folder: ConfigFolder, env: dict[str, str], *args: str, endpoints: Endpoints | None = None,
    refused: bool = False,
) -> tuple[int, list[str]]:
    """Start the broker with ``env``, stop it with SIGTERM once it relays (unless it is
    ``refused`` to start): its status and stderr lines."""
    path = folder.root / f"broker-{os.urandom(3).hex()}.log"
    with path.open("wb") as out:
        stat = os.fstat(out.fileno())
        stream = f"{stat.st_dev}:{stat.st_ino}"
        env = {key: value.replace(STREAM, stream) for key, value in env.items()}
        drop = ("JOURNAL_STREAM", "DESKTOP_ASSISTANT_LOG_LEVEL", "DESKTOP_ASSISTANT_LOG_TIME")
        base = {k: v for k, v in python_env().items() if k not in drop}
        broker = subprocess.Popen(
            [sys.executable, "-m", "bus", *folder.args(), *args],
            cwd=ROOT, env={**base, **env}, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
        )
        try:
            if not refused:
                asyncio.run(wait_broker(endpoints or folder.endpoints))
                broker.send_signal(signal.SIGTERM)
            broker.wait(15)
        finally:
            if broker.poll() is None:
                broker.kill()
                broker.wait(5)
    return broker.returncode, path.read_text().splitlines()


@pytest.mark.parametrize(
    ("env", "args", "config", "logged"),
    [
        ({}, (), "", True),  # INFO by default
        ({}, (), 'level = "WARNING"', False),
        ({"DESKTOP_ASSISTANT_LOG_LEVEL": "info"}, (), 'level = "WARNING"', True),
        ({"DESKTOP_ASSISTANT_LOG_LEVEL": "info"}, ("--log-level", "warning"), "", False),
        ({"DESKTOP_ASSISTANT_LOG_LEVEL": "warning"}, ("--log-level", "DEBUG"), "", True),
    ],
    ids=["default", "config", "env over config", "flag over env", "flag over env (debug)"],
)
def test_the_level_comes_from_flag_then_env_then_config(
    config_folder: ConfigFolder, env: dict[str, str], args: tuple[str, ...], config: str,
    logged: bool,
) -> None:
    config_folder.write(f"[log]\n{config}\n")
    code, lines = broker_log(config_folder, env, *args)
    assert code == 0
    assert any(line.endswith("INFO broker: stopped") for line in lines) is logged, lines


def test_an_unknown_level_is_a_clear_error(config_folder: ConfigFolder) -> None:
    code, lines = broker_log(config_folder, {}, "--log-level", "verbose", refused=True)
    assert code == 2 and lines[-1] == (
        "python -m bus: error: argument --log-level: invalid level 'verbose' "
        "(choose from DEBUG, INFO, WARNING, ERROR)"
    ), lines
    code, lines = broker_log(
        config_folder, {"DESKTOP_ASSISTANT_LOG_LEVEL": "verbose"}, refused=True
    )
    assert (code, lines) == (2, [
        "DESKTOP_ASSISTANT_LOG_LEVEL: invalid level 'verbose' (choose from DEBUG, INFO, "
        "WARNING, ERROR)"
    ])


def test_a_service_refuses_an_unknown_level_too() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "services.watchdog", "--log-level", "verbose"],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "invalid level 'verbose' (choose from DEBUG, INFO, WARNING, ERROR)" in done.stderr
