"""``desktop-assistant ready``: one line once every Procfile service beats (what to do next, or
what is missing with its fix), the late ones named on a timeout; with ``--stay``, as
``./bootstrap run`` starts it beside honcho's processes, it then idles until a signal."""

from __future__ import annotations

import asyncio
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable

import pytest

from bus.client import Bus
from bus.messages import Heartbeat
from desktop_assistant.commands.ready import say
from desktop_assistant.doctor import local, next_step
from desktop_assistant.doctor.remote import expected_services
from desktop_assistant.doctor.result import Check
from settings import Config
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.busrun import with_buses
from tests.helpers.httpdouble import closed_port_url
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import ROOT, Process, python_env

SERVICES = [name for name in expected_services() if name != "broker"]
"""The stand-ins' names: the test's real broker beats for itself."""
PUSH = ("desktop-assistant: ready. To ask, run `desktop-assistant listen` (or bind it to a "
        "hotkey), then ask your question.")


class Ready:
    """``desktop-assistant ready ARGS --config FOLDER``, its output lines read as they come."""

    def __init__(self, folder: ConfigFolder, *args: str) -> None:
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "desktop_assistant", "ready", *args, *folder.args()],
            cwd=ROOT, env=python_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for text in self.popen.stdout:
            self._lines.put(text.rstrip("\n"))

    async def line(self, timeout: float = 30.0) -> str:
        return await asyncio.to_thread(self._lines.get, True, timeout)

    def said(self) -> list[str]:
        return list(self._lines.queue)

    async def stop(self, signum: signal.Signals) -> int:
        self.popen.send_signal(signum)
        code = await asyncio.to_thread(self.popen.wait, 10)
        await asyncio.to_thread(self._reader.join, 5)  # its last words, if any, are read
        return code

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(5)


async def beating(bus: Bus, states: dict[str, str]) -> None:
    """A heartbeat every 0.2 s for each service of ``states``, in its state there now."""
    while True:
        for name, state in list(states.items()):
            bus.publish(Heartbeat(service=name, pid=os.getpid(), state=state, version="t",
                                  interval=0.2))
        await asyncio.sleep(0.2)


def run_with_beats(
    folder: ConfigFolder, states: dict[str, str], body: Callable[[], Awaitable[None]]
) -> None:
    async def main(bus: Bus) -> None:
        beats = asyncio.ensure_future(beating(bus, states))
        try:
            await body()
        finally:
            beats.cancel()

    with_buses(folder.endpoints, ["stand-ins"], main)


def test_the_line_comes_once_every_service_is_up_and_it_stays(
    broker: Process, config_folder: ConfigFolder
) -> None:
    with ScriptedLLM() as llm:
        llm.default = c.text("ok")
        config_folder.write(f'llm = "{llm.url}"\n[listen]\nmode = "push"\n')
        states = dict.fromkeys(SERVICES, "ready") | {"tts": "starting"}
        ready = Ready(config_folder, "--stay", "--timeout", "60")

        async def body() -> None:
            await asyncio.sleep(4.0)
            assert ready.said() == []  # the TTS is still loading: nothing to say yet
            states["tts"] = "ready"
            assert await ready.line() == PUSH
            await asyncio.sleep(1.0)
            assert ready.popen.poll() is None  # it stays: honcho would stop everything
            assert await ready.stop(signal.SIGTERM) == 0

        try:
            run_with_beats(config_folder, states, body)
        finally:
            ready.kill()
    assert ready.said() == []  # one line, nothing else (no traceback on the way out)


def test_a_timeout_names_the_late_services_then_the_line_comes_when_they_are_up(
    broker: Process, config_folder: ConfigFolder
) -> None:
    config_folder.write(f'llm = "{closed_port_url()}/v1"\n[listen]\nmode = "always"\n')
    states = dict.fromkeys(SERVICES, "ready") | {"stt": "starting"}
    del states["tts"]
    ready = Ready(config_folder, "--stay", "--timeout", "4")

    async def body() -> None:
        assert await ready.line() == (
            "desktop-assistant: not up after 4 s: stt (starting), tts (no heartbeat); see their "
            "lines above, or run `desktop-assistant doctor`"
        )
        states["stt"] = states["tts"] = "ready"
        line = await ready.line()
        assert line.startswith("desktop-assistant: ready, but only the local answers work")
        assert line.endswith(". Ask your question: the mic is always listening.")
        assert await ready.stop(signal.SIGINT) == 0

    try:
        run_with_beats(config_folder, states, body)
    finally:
        ready.kill()


def test_without_stay_a_timeout_exits_unavailable(config_folder: ConfigFolder) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "ready", "--timeout", "1",
         *config_folder.args()],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith("desktop-assistant: not up after 1 s: broker (no heartbeat), ")
    assert done.stdout.count("\n") == 1


def test_a_detail_on_several_lines_is_said_on_one(capsys: pytest.CaptureFixture[str]) -> None:
    say("ready, but the mic does not record (no default input device; input devices:\n"
        "  (none)). Meanwhile, type.")
    assert capsys.readouterr().out == ("desktop-assistant: ready, but the mic does not record (no "
                                       "default input device; input devices: (none)). "
                                       "Meanwhile, type.\n")


# -- the line itself ----------------------------------------------------------------------


def beat(service: str, state: str = "ready", detail: str = "") -> Heartbeat:
    return Heartbeat(service=service, pid=42, state=state, version="1", ts=1000.0,
                     detail=detail)


def test_a_silent_service_is_not_up() -> None:
    beats = {name: beat(name) for name in expected_services()}
    assert next_step.not_up(expected_services(), beats, now=1000.5) == []
    del beats["mic"]
    beats["stt"] = beat("stt", "degraded")
    assert next_step.not_up(expected_services(), beats, now=1010.0)[:3] == [
        "broker (silent)", "mic (no heartbeat)", "stt (silent)"
    ]


def test_the_wake_word_is_the_one_the_mic_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config.model_validate({"listen": {"mode": "wake"}, "wake": {"model": "hey_jarvis"}})
    assert next_step.next_step(config) == 'Say "Hey Jarvis", then your question.'

    monkeypatch.setitem(sys.modules, "pymicro_wakeword", None)  # `import` fails
    assert next_step.next_step(config) == (
        "The wake word is not installed (./bootstrap setup installs it): run `desktop-assistant "
        "listen` (or bind it to a hotkey), then ask your question."
    )


def test_no_microphone_and_no_llm_are_said_with_their_fixes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    card_fix = 'set `card` in config.toml, or to "" for the default input'
    monkeypatch.setattr(local, "check_audio", lambda config: [
        Check("audio input", False, "no default input device", card_fix),
        Check("audio output", True, "default"),
    ])
    config = Config.model_validate({"llm": "http://x:1/v1"})
    beats = {name: beat(name) for name in expected_services()}
    beats["mic"] = beat("mic", "degraded", "mic: no default input device; inputs: none")
    beats["dialogue"] = beat("dialogue", "degraded", "LLM: llm-unavailable at http://x:1/v1")
    llm = Check("llm", False, "http://x:1/v1 unreachable (ConnectError)", "start one there")
    text, complete = next_step.line(config, beats, llm)
    assert not complete
    assert text == (
        "ready, but the mic does not record (no default input device; inputs: none; fix: "
        f"{card_fix}); only the local answers work (LLM: http://x:1/v1 unreachable "
        '(ConnectError); fix: start one there). Meanwhile, type your questions: '
        '`desktop-assistant ask "..."`.'
    )
    fine = {name: beat(name) for name in expected_services()}
    up = Check("llm", True, "http://x:1/v1: m")
    assert next_step.line(Config.model_validate({"listen": {"mode": "always"}}), fine, up) == (
        "ready. Ask your question: the mic is always listening.", True
    )
