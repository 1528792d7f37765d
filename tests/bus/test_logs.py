"""The log lines of a real process (``python -m bus``) under a terminal, honcho and journald,
and the log level from the flag, the environment and the config (``bus/logs.py``)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys

import pytest

from bus.endpoints import Endpoints
from tests.conftest import ConfigFolder
from tests.helpers.broker import wait_broker
from tests.helpers.ports import free_port
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


def test_on_a_terminal_each_line_has_its_time(config_folder: ConfigFolder) -> None:
    code, lines = broker_log(config_folder, {})
    assert code == 0 and any(re.fullmatch(TIME + "bus.broker INFO broker: stopped", x)
                             for x in lines), lines


def test_under_honcho_the_procfile_drops_our_time(config_folder: ConfigFolder) -> None:
    code, lines = broker_log(config_folder, {"DESKTOP_ASSISTANT_LOG_TIME": "0"})
    assert code == 0 and lines[-2:] == [
        "bus.broker INFO broker: stopping", "bus.broker INFO broker: stopped"
    ], lines


def test_under_journald_lines_carry_their_priority_and_no_time(
    config_folder: ConfigFolder,
) -> None:
    ports = free_port(), free_port()
    endpoints = Endpoints(pub=f"tcp://127.0.0.1:{ports[0]}", sub=f"tcp://127.0.0.1:{ports[1]}")
    (config_folder.path / "config.toml").write_text(
        f'[bus]\npub = "{endpoints.pub}"\nsub = "{endpoints.sub}"\nplain_tcp = true\n'
    )
    code, lines = broker_log(config_folder, {"JOURNAL_STREAM": STREAM}, endpoints=endpoints)
    assert code == 0
    assert lines[0] == ("<4>bus.process WARNING bus: plain TCP allowed by [bus] plain_tcp: "
                        "traffic is unencrypted"), lines
    assert lines[-1] == "<6>bus.broker INFO broker: stopped", lines


def test_a_journal_stream_of_another_file_is_not_journald(config_folder: ConfigFolder) -> None:
    """A child of a unit whose stderr went elsewhere inherits JOURNAL_STREAM: not journald."""
    code, lines = broker_log(config_folder, {"JOURNAL_STREAM": "1:1"})
    assert code == 0 and re.fullmatch(TIME + "bus.broker INFO broker: stopped", lines[-1])


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
