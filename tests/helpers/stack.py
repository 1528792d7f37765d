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
from tests.conftest import ConfigFolder, wait_broker
from tests.helpers.processes import Process

M = TypeVar("M", bound=Message)


class Stack:
    def __init__(self, config: str = "") -> None:
        self.root = Path(tempfile.mkdtemp(prefix="da-"))
        self.folder = ConfigFolder(self.root)
        self.folder.write(config)
        self.processes: list[Process] = []
        self.start("bus")
        asyncio.run(wait_broker(self.folder.endpoints))

    @property
    def endpoints(self) -> Endpoints:
        return self.folder.endpoints

    def start(self, module: str, *args: str, env: dict[str, str] | None = None) -> Process:
        proc = Process(module, *self.folder.args(), *args, log_dir=self.root, env=env)
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
