"""A config folder, a real broker and service processes shared by a whole test module."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.message import Message
from bus.messages import Heartbeat
from tests.helpers.broker import wait_broker
from tests.helpers.processes import Process

M = TypeVar("M", bound=Message)


def always_listening(config: str) -> str:
    """What the tests of the whole path assume, unless ``config`` has its own table:
    ``[listen] mode = "always"`` (test speech has no wake word; the wake word's own tests
    say so) and ``[intents] mode = "off"`` (their questions are for the scripted LLM; the
    local intents' own tests turn them on)."""
    listen = "" if "[listen]" in config else '[listen]\nmode = "always"\n'
    return listen + ("" if "[intents]" in config else '[intents]\nmode = "off"\n')


class Stack:
    """``config`` is the body of ``config.toml`` after the stack's own ``[bus]`` table (so
    tables only; top-level keys go in ``top``). Heartbeats come every 0.2 s: state changes
    show quickly."""

    def __init__(self, config: str = "", top: str = "") -> None:
        # A short path: ipc socket paths are limited to 107 characters.
        self.root = Path(tempfile.mkdtemp(prefix="da-"))
        run = self.root / "run"
        self.endpoints = Endpoints(pub=f"ipc://{run}/pub.sock", sub=f"ipc://{run}/sub.sock")
        self.config = self.write(config, top)
        self.processes: list[Process] = []
        self.start("bus")
        asyncio.run(wait_broker(self.endpoints))

    def write(self, config: str = "", top: str = "", name: str = "config") -> Path:
        """A config folder ``name`` on this stack's bus (several may coexist)."""
        folder = self.root / name
        (folder / "tools").mkdir(parents=True, exist_ok=True)
        pub, sub = self.endpoints.pub, self.endpoints.sub
        bus = f'[bus]\npub = "{pub}"\nsub = "{sub}"\nheartbeat = 0.2\n'
        (folder / "config.toml").write_text(top + bus + config + always_listening(config))
        return folder

    def start(
        self, module: str, *args: str, env: dict[str, str] | None = None, config: Path | None = None
    ) -> Process:
        folder = config or self.config
        proc = Process(module, "--config", str(folder), *args, log_dir=self.root, env=env)
        self.processes.append(proc)
        return proc

    def close(self) -> None:
        for proc in reversed(self.processes):
            proc.stop()
        shutil.rmtree(self.root, ignore_errors=True)


async def wait_state(bus: Bus, service: str, state: str, timeout: float = 60.0) -> Heartbeat:
    """The first heartbeat of ``service`` in ``state`` (proof that it runs and is connected)."""
    return await bus.wait_for(
        Heartbeat, lambda h: h.service == service and h.state == state, timeout=timeout
    )


async def expect(
    bus: Bus, kind: type[M], match: Callable[[M], bool] = lambda m: True, timeout: float = 30.0
) -> asyncio.Task[M]:
    """Start waiting for a message now, before sending what causes it. Subscribe its topic
    (and prove the path with ``wait_path``) before this, or the answer may pass unseen."""
    task = asyncio.ensure_future(bus.wait_for(kind, match, timeout))
    await asyncio.sleep(0)
    return task
