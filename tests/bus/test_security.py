"""Nobody gets in: private ipc folder, CURVE on TCP, plain TCP only when asked for."""

from __future__ import annotations

import asyncio
import os
import pwd
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bus.client import Bus, RequestTimeout
from bus.endpoints import EndpointError, resolve
from bus.messages import SpeakRequest
from bus.security import create_keys
from tests.conftest import ConfigFolder
from tests.helpers.broker import wait_broker
from tests.helpers.ports import free_port
from tests.helpers.processes import ROOT, Process, python_env


def test_another_user_cannot_connect_to_the_ipc_sockets(
    broker: Process, config_folder: ConfigFolder
) -> None:
    nobody = pwd.getpwnam("nobody")
    path = config_folder.runtime / "pub.sock"
    pid = os.fork()
    if pid == 0:  # the child becomes another user and tries to connect
        code = 1
        try:
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            attempt = socket.socket(socket.AF_UNIX)
            attempt.connect(str(path))
            code = 0
        except PermissionError:
            code = 13
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 13
    # The owner can.
    owner = socket.socket(socket.AF_UNIX)
    owner.connect(str(path))
    owner.close()


def test_plain_tcp_is_refused_unless_allowed(tmp_path: Path) -> None:
    with pytest.raises(EndpointError, match="plain_tcp = true"):
        resolve("tcp://127.0.0.1:1", "tcp://127.0.0.1:2", keys=str(tmp_path / "keys"))
    allowed = resolve("tcp://127.0.0.1:1", "tcp://127.0.0.1:2", plain_tcp=True)
    assert allowed.curve is None


def write_tcp_config(folder: Path, pub: int, sub: int, keys: Path, client: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        f'[bus]\npub = "tcp://127.0.0.1:{pub}"\nsub = "tcp://127.0.0.1:{sub}"\n'
        f'keys = "{keys}"\nclient = "{client}"\n'
    )
    return folder


def test_curve_lets_allowed_keys_in_and_keeps_others_out(tmp_path: Path) -> None:
    pub, sub = free_port(), free_port()
    keys = tmp_path / "desktop-keys"
    create_keys(keys, "client")  # server pair + an allowed client
    # A stranger: a valid key pair and the server's public key, but not allowed.
    stranger = tmp_path / "stranger-keys"
    create_keys(stranger, "stranger")
    (stranger / "server.key").write_bytes((keys / "server.key").read_bytes())
    server_config = write_tcp_config(tmp_path / "server", pub, sub, keys, "client")
    broker = Process("bus", "--config", str(server_config), log_dir=tmp_path)
    try:
        from bus.process import endpoints_of
        from settings import load_config

        good = endpoints_of(load_config(server_config)[0])
        assert good.curve is not None
        asyncio.run(wait_broker(good))
        bad_config = write_tcp_config(tmp_path / "bad", pub, sub, stranger, "stranger")
        bad = endpoints_of(load_config(bad_config)[0])

        async def body() -> None:
            friend, intruder = Bus(good, "friend"), Bus(bad, "intruder")
            try:
                friend.subscribe("tts.say")
                await friend.wait_connected(timeout=10)
                # The intruder can neither publish to the friend ...
                intruder.publish(SpeakRequest(text="let me in"))
                assert await friend.recv(timeout=1.0) is None
                # ... nor see its own probe come back (it cannot subscribe either).
                with pytest.raises(RequestTimeout):
                    await intruder.wait_connected(timeout=1.5)
                friend.publish(SpeakRequest(text="welcome"))
                got = await friend.recv(timeout=5)
                assert got is not None and got.text == "welcome"  # type: ignore[attr-defined]
            finally:
                await friend.close()
                await intruder.close()

        asyncio.run(body())
    finally:
        broker.stop()


def test_keys_command_creates_pairs_and_allow_list(tmp_path: Path) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "keys", "add", "kitchen",
         "--config", str(folder)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    keys = folder / "keys"
    assert (keys / "server.key_secret").exists() and (keys / "kitchen.key_secret").exists()
    assert (keys / "allowed" / "kitchen.key").exists()
    assert oct((keys / "kitchen.key_secret").stat().st_mode & 0o777) == "0o600"
    assert "copy" in run.stdout and 'client = "kitchen"' in run.stdout
