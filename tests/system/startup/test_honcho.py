"""``honcho start`` from the repository brings the whole assistant up, as ``./bootstrap run``
does; SIGTERM or SIGINT (Ctrl-C) to honcho stops every process within seconds."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bus.client import Bus
from bus.messages import Heartbeat
from desktop_assistant.systemd import read_procfile
from tests.conftest import ConfigFolder
from tests.helpers.broker import wait_broker
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.ports import free_port
from tests.helpers.processes import ROOT
from tests.helpers.soundcard import SoundCard

HONCHO = Path(sys.executable).parent / "honcho"
NAMES = [process.name for process in read_procfile(ROOT / "Procfile")]
STOP_WITHIN = 4.0
"""A couple of seconds, with room for a busy machine; honcho sends SIGKILL 5 s after SIGTERM
(systemd's units wait as long), so a process still there by then did not stop on its own."""


@pytest.fixture(scope="module")
def card() -> Iterator[SoundCard]:
    with SoundCard() as started:
        yield started


def write_env_file(path: Path, card: SoundCard, config_folder: ConfigFolder) -> Path:
    """What a user puts in ``.env`` (see ``.env.example``)."""
    path.write_text(
        f"DESKTOP_ASSISTANT_CONFIG={config_folder.path}\n"
        f"PULSE_SERVER={card.server}\n"
        f"XDG_STATE_HOME={config_folder.root / 'state'}\n"
    )
    return path


def start_honcho(
    env_file: Path, log: Path, venv_on_path: bool = True, processes: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    outside = ("DESKTOP_ASSISTANT_CONFIG", "PULSE_SERVER", "VIRTUAL_ENV")  # only from the env file
    env = {k: v for k, v in os.environ.items() if k not in outside}
    others = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p and not on_venv(p)]
    # bootstrap puts .venv/bin first; deploy/README.md's `.venv/bin/honcho start` does not
    env["PATH"] = os.pathsep.join(([str(HONCHO.parent)] if venv_on_path else []) + others)
    return subprocess.Popen(
        [str(HONCHO), "start", "-f", str(ROOT / "Procfile"), "-d", str(ROOT), "-e", str(env_file),
         "--no-colour", *processes],
        cwd=ROOT,  # honcho runs each line in its own folder: the Procfile's .venv/bin/python
        env=env, stdin=subprocess.DEVNULL, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def on_venv(folder: str) -> bool:
    return Path(folder).resolve() == HONCHO.parent.resolve()


async def wait_all_ready(
    folder: ConfigFolder, honcho: subprocess.Popen[bytes], log: Path, timeout: float = 120.0
) -> dict[str, int]:
    """``service → pid`` once every Procfile process heartbeats ``ready``."""
    deadline = time.monotonic() + timeout
    bus = Bus(folder.endpoints, "test")
    ready: dict[str, int] = {}
    try:
        bus.subscribe(Heartbeat.TOPIC)
        await bus.wait_connected(timeout=60)
        while set(ready) != set(NAMES):
            if honcho.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"ready: {sorted(ready)}\n{log.read_text()[-4000:]}")
            msg = await bus.recv(timeout=0.5)
            if isinstance(msg, Heartbeat) and msg.state == "ready":
                ready[msg.service] = msg.pid
    finally:
        await bus.close()
    return ready


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_honcho_starts_every_process_and_a_signal_stops_them_all(
    signum: signal.Signals, card: SoundCard, config_folder: ConfigFolder
) -> None:
    with ScriptedLLM() as llm:
        config_folder.write(
            f'card = "pulse"\nllm = "{llm.url}"\n[brain]\nport = {free_port()}\n'
        )
        env_file = write_env_file(config_folder.root / "test.env", card, config_folder)
        log = config_folder.root / "honcho.log"
        honcho = start_honcho(env_file, log)
        pids: dict[str, int] = {}
        try:
            pids = asyncio.run(wait_all_ready(config_folder, honcho, log))
            signalled = time.monotonic()
            honcho.send_signal(signum)
            while any(running(pid) for pid in pids.values()):
                late = [name for name, pid in pids.items() if running(pid)]
                assert time.monotonic() - signalled < STOP_WITHIN, (late, log.read_text()[-3000:])
                time.sleep(0.05)  # polling /proc for the processes to be gone, with a deadline
            honcho.wait(10)
        finally:
            if honcho.poll() is None:
                os.killpg(honcho.pid, signal.SIGKILL)
                honcho.wait(5)
            for pid in pids.values():
                if running(pid):
                    os.kill(pid, signal.SIGKILL)
    output = log.read_text()
    assert sorted(pids) == sorted(NAMES)
    for name in NAMES:  # each stopped on its own, not killed
        own = "\n".join(line for line in output.splitlines() if f" {name}.1 " in line)
        assert f"{name}: stopped" in own, f"{name} did not stop by itself:\n{own[-4000:]}"
        # honcho's time starts each line; the Procfile's DESKTOP_ASSISTANT_LOG_TIME=0 drops ours
        assert re.search(rf"^\d\d:\d\d:\d\d {name}\.1 +\| \S+ INFO {name}: stopped$", own,
                         flags=re.MULTILINE), own[-2000:]
    assert "SIGKILL" not in output and "Traceback" not in output, output[-3000:]


def test_the_procfile_finds_the_venv_when_it_is_not_on_path(config_folder: ConfigFolder) -> None:
    """``.venv/bin/honcho start`` with a PATH that lacks .venv/bin: the broker starts."""
    env_file = config_folder.root / "test.env"
    env_file.write_text(f"DESKTOP_ASSISTANT_CONFIG={config_folder.path}\n")
    log = config_folder.root / "honcho.log"
    honcho = start_honcho(env_file, log, venv_on_path=False, processes=("broker",))
    try:
        asyncio.run(wait_broker(config_folder.endpoints, timeout=60))
        honcho.send_signal(signal.SIGTERM)
        honcho.wait(10)
    finally:
        if honcho.poll() is None:
            os.killpg(honcho.pid, signal.SIGKILL)
            honcho.wait(5)
    assert "broker: stopped" in log.read_text(), log.read_text()[-3000:]


def test_env_example_shows_what_honcho_may_pass_and_env_stays_out_of_git() -> None:
    example = (ROOT / ".env.example").read_text()
    for name in ("DESKTOP_ASSISTANT_CONFIG", "PULSE_SERVER", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        assert f"\n#{name}=" in example, name
    assert ".env" in (ROOT / ".gitignore").read_text().split()
