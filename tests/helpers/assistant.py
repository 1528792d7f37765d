"""The whole assistant as real processes, for end-to-end and fault tests.

Every process of the Procfile runs as in production (``python -m ...
--config DIR``), on a private broker, with the example tools copied into the
config folder, the scripted LLM server in the test's process and, when asked
for, the virtual sound card as the mic and the speaker.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bus.client import Bus
from bus.message import Message
from bus.messages import Heartbeat, QuestionRequest, Reply
from desktop_assistant.systemd import read_procfile
from tests.helpers.broker import wait_broker
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.ports import free_port
from tests.helpers.processes import ROOT, Process, python_env
from tests.helpers.service_stack import always_listening
from tests.helpers.soundcard import SoundCard
from tests.helpers.speech import CACHE

M = TypeVar("M", bound=Message)

EXAMPLES = ROOT / "examples" / "tools"
SERVICES = [p.name for p in read_procfile(ROOT / "Procfile") if p.name != "broker"]


class Assistant:
    """``config`` is appended to config.toml (tables); ``top`` goes before the first table."""

    def __init__(
        self,
        *,
        sound: bool = True,
        tools: tuple[str, ...] = ("now",),
        services: list[str] | None = None,
        config: str = "",
        top: str = "",
        env: dict[str, str] | None = None,
        llm_up: bool = True,
        no_llm: bool = False,
    ) -> None:
        """``llm_up=False``: nothing answers at the LLM's address until :meth:`start_llm`;
        ``no_llm``: none configured (``llm = ""``), as a new user has it."""
        self.no_llm = no_llm
        self.root = Path(tempfile.mkdtemp(prefix="da-"))
        self.card = SoundCard() if sound else None
        self.llm = ScriptedLLM()
        self.llm_up = llm_up
        if not llm_up:
            self.llm.stop()  # keeps the port number; connections to it are refused
        self.brain_port = free_port()
        self.services = services if services is not None else list(SERVICES)
        self.folder = self.root / "config"
        self.run_dir = self.root / "run"
        self.state = self.root / "state"
        self.wav_out = self.root / "spoken"
        self.processes: dict[str, Process] = {}
        self.started_at = 0.0
        """``time.monotonic()`` when :meth:`start` began spawning processes."""
        self.ready_at: dict[str, float] = {}
        """``time.monotonic()`` when each service's current process first heartbeat ``ready``."""
        self._env = env or {}
        (self.folder / "tools").mkdir(parents=True)
        for name in tools:
            for path in EXAMPLES.glob(f"{name}.*"):
                shutil.copy2(path, self.folder / "tools" / path.name)
        self._write(config, top)

    @property
    def brain_url(self) -> str:
        return f"http://127.0.0.1:{self.brain_port}"

    @property
    def endpoints(self):  # type: ignore[no-untyped-def]
        from bus.endpoints import Endpoints

        return Endpoints(pub=f"ipc://{self.run_dir}/pub.sock", sub=f"ipc://{self.run_dir}/sub.sock")

    def _write(self, config: str, top: str) -> None:
        card = 'card = "pulse"\n' if self.card else ""
        (self.folder / "config.toml").write_text(
            f'{card}llm = "{"" if self.no_llm else self.llm.url}"\n{top}'
            f'[bus]\npub = "{self.endpoints.pub}"\nsub = "{self.endpoints.sub}"\n'
            f"heartbeat = 0.5\n"
            f"[brain]\nport = {self.brain_port}\n"
            f"{config}{always_listening(config)}"
        )

    def env(self) -> dict[str, str]:
        env = self.card.env() if self.card else dict(os.environ)
        env["XDG_STATE_HOME"] = str(self.state)
        env["KOKORO_JA_CACHE"] = str(CACHE / "kokoro")
        # The example tools' shebang (python3) must find this venv's packages.
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.defpath)}"
        env.update(self._env)
        return env

    # -- processes ---------------------------------------------------------------

    def start(
        self,
        timeout: float = 120.0,
        *,
        broker: bool = True,
        wait: bool = True,
        order: list[str] | None = None,
    ) -> Assistant:
        """Start everything and wait until every service is ready. ``broker=False`` leaves
        the broker to the test (and waits for nothing); ``order`` starts the services in
        that order; ``wait=False`` returns once all are started."""
        if self.card:
            self.card.start()
        if self.llm_up:
            self.llm.start()
        self.started_at = time.monotonic()
        if broker:
            self.start_broker()
        for name in order or self.services:
            self.start_service(name)
        if broker and wait:
            asyncio.run(self.wait_ready(self.services, timeout))
        return self

    def start_broker(self) -> Process:
        proc = self.processes["broker"] = self._spawn("bus")
        asyncio.run(wait_broker(self.endpoints))
        return proc

    def start_service(self, name: str, *args: str) -> Process:
        if name == "tts" and "--wav-out" not in args:
            args = (*args, "--wav-out", str(self.wav_out))
        self.processes[name] = self._spawn(f"services.{name}", *args)
        return self.processes[name]

    def _spawn(self, module: str, *args: str) -> Process:
        return Process(module, "--config", str(self.folder), *args, log_dir=self.root,
                       env=self.env())

    async def wait_ready(
        self, names: list[str], timeout: float = 120.0, states: tuple[str, ...] = ("ready",)
    ) -> None:
        """Until each named service's current process heartbeats ``ready`` (or ``states``)."""
        bus = Bus(self.endpoints, "test-ready")
        try:
            bus.subscribe(Heartbeat.TOPIC)
            await bus.wait_connected()
            waiting = set(names)
            deadline = time.monotonic() + timeout
            while waiting:
                for name in waiting:
                    proc = self.processes[name]
                    if proc.popen.poll() is not None:
                        raise AssertionError(f"{name} exited:\n{proc.output()[-3000:]}")
                if time.monotonic() > deadline:
                    raise AssertionError(f"never ready: {sorted(waiting)}\n{self.logs(waiting)}")
                msg = await bus.recv(timeout=0.5)
                if isinstance(msg, Heartbeat) and msg.state in states:
                    proc = self.processes.get(msg.service)
                    if proc is not None and proc.pid == msg.pid and msg.service in waiting:
                        waiting.discard(msg.service)
                        self.ready_at[msg.service] = time.monotonic()
        finally:
            await bus.close()

    def start_llm(self) -> ScriptedLLM:
        """Bring up the scripted LLM at the address the config names (``llm_up=False``)."""
        if not self.llm_up:
            self.llm = ScriptedLLM(port=self.llm.port)
            self.llm.start()
            self.llm_up = True
        return self.llm

    def cli(self, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """``desktop-assistant ARGS --config FOLDER`` with the assistant's environment."""
        return subprocess.run(
            self.cli_command(*args), cwd=ROOT, env=python_env(self.env()), capture_output=True,
            text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        )

    def cli_command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "desktop_assistant", *args, "--config", str(self.folder)]

    def kill(self, name: str) -> None:
        self.processes[name].kill()

    def restart(self, name: str, timeout: float = 120.0) -> None:
        self.processes[name].stop()
        if name == "broker":
            self.start_broker()
            return
        self.start_service(name)
        asyncio.run(self.wait_ready([name], timeout))

    def logs(self, names: set[str] | list[str] | None = None) -> str:
        picked = names or list(self.processes)
        return "\n".join(
            f"--- {name}\n{self.processes[name].output()[-12000:]}" for name in picked
            if name in self.processes
        )

    def close(self) -> None:
        for proc in reversed(list(self.processes.values())):
            proc.stop()
        self.llm.stop()
        if self.card:
            self.card.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Assistant:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class Recorder:
    """A bus client that keeps every message, for assertions on what the system did."""

    def __init__(self, assistant: Assistant, name: str = "test") -> None:
        self.bus = Bus(assistant.endpoints, name)
        self.seen: list[Message] = []

    async def __aenter__(self) -> Recorder:
        self.bus.subscribe("")
        await self.bus.wait_connected()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bus.close()

    async def until(
        self, kind: type[M], match: Callable[[M], bool] = lambda m: True, timeout: float = 60.0
    ) -> M:
        """The first message (already seen or arriving) of ``kind`` that ``match``es."""
        for msg in self.seen:
            if isinstance(msg, kind) and match(msg):
                return msg
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            msg = await self.bus.recv(timeout=left)
            if msg is None:
                break
            self.seen.append(msg)
            if isinstance(msg, kind) and match(msg):
                return msg
        seen = ", ".join([m.TOPIC for m in self.seen if m.TOPIC != "sys.heartbeat"][-30:])
        raise AssertionError(f"no {kind.TOPIC} within {timeout:g} s; last seen: {seen}")

    async def drain(self, seconds: float) -> None:
        """Keep recording for ``seconds`` (to show that nothing more happens)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            msg = await self.bus.recv(timeout=left)
            if msg is not None:
                self.seen.append(msg)

    async def ask(self, text: str, session: str = "test", timeout: float = 60.0) -> Reply:
        """A text turn over the bus, as ``desktop-assistant ask`` sends it; its turn id is the
        request id."""
        request = QuestionRequest(session=session, text=text)
        self.bus.publish(request)
        return await self.until(Reply, lambda r: r.reply_to == request.id, timeout)

    def of(self, kind: type[M], turn: str | None = None) -> list[M]:
        return [m for m in self.seen if isinstance(m, kind) and (turn is None or m.turn == turn)]
