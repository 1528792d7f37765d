"""The whole text path as real processes: broker, scripted tool executor, dialogue, brain.

The scripted LLM server runs in the test's process so each test can script it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import ConfigFolder
from tests.helpers.broker import wait_broker
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.ports import free_port
from tests.helpers.processes import Process


class Stack:
    def __init__(self, tools: list[dict[str, Any]], brain: str = "", dialogue: str = "") -> None:
        self.root = Path(tempfile.mkdtemp(prefix="da-"))
        self.folder = ConfigFolder(self.root)
        self.llm = ScriptedLLM()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tools = tools
        self.folder.write(
            f'llm = "{self.llm.url}"\n[dialogue]\nmodel = "m"\n{dialogue}\n'
            f"[brain]\nport = {self.port}\n{brain}\n"
        )
        self.processes: dict[str, Process] = {}
        self.headers: dict[str, str] = {}
        """Sent by :meth:`wait_ready` (a token, when the brain wants one)."""

    def start(self, *, executor: bool = True, dialogue: bool = True, wait: bool = True) -> Stack:
        self.llm.start()
        self.run("bus")
        asyncio.run(wait_broker(self.folder.endpoints))
        if executor:
            self.run("tests.helpers.tool_executor", "--catalog", json.dumps(self.tools))
        if dialogue:
            self.run("services.dialogue")
        self.run("services.brain")
        if wait:
            self.wait_ready()
        return self

    def run(self, module: str, *args: str) -> Process:
        proc = Process(module, *self.folder.args(), *args, log_dir=self.root)
        self.processes[module] = proc
        return proc

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            try:
                response = httpx.get(f"{self.url}/health/ready", headers=self.headers, timeout=2)
                if response.status_code == 200:
                    return
                last = response.text
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.05)
        raise TimeoutError(f"brain not ready: {last}\n{self.logs()}")

    def logs(self) -> str:
        return "\n".join(f"--- {m}\n{p.log_path.read_text()}" for m, p in self.processes.items())

    def stop(self) -> None:
        for proc in reversed(list(self.processes.values())):
            proc.stop()
        self.llm.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def running(tools: list[dict[str, Any]]) -> Iterator[Stack]:
    """A started stack, stopped afterwards (for module-scoped fixtures)."""
    stack = Stack(tools).start()
    try:
        yield stack
    finally:
        stack.stop()


@contextlib.contextmanager
def fresh(stack: Stack) -> Iterator[Stack]:
    """The same stack with its LLM's script and records emptied before and after."""
    stack.llm.reset()
    try:
        yield stack
    finally:
        stack.llm.reset()
