"""The whisper-server stand-in (``whisper_server_standin.py``) as its own process on a free
port, scripted by a file it rereads at every request."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx

from tests.helpers.ports import free_port
from tests.helpers.processes import Process


class Whisper:
    def __init__(self, root: Path, text: str) -> None:
        """``text``: what it transcribes every clip as, until :meth:`script` says otherwise."""
        self.root = root
        self.port = free_port()
        self.model = root / "ggml-test.bin"
        self.model.write_bytes(b"not a model")
        self.script_path = root / "whisper.json"
        self.log = root / "whisper.log"
        self.proc: Process | None = None
        self.script(text=text)

    def script(self, **plan: object) -> None:
        self.script_path.write_text(json.dumps(plan))

    def config(self, timeout: float) -> str:
        """The ``[whisper]`` table that makes the STT use it."""
        return (f'[whisper]\nbackend = "server"\nhost = "127.0.0.1"\nport = {self.port}\n'
                f"timeout = {timeout:g}\n")

    def start(self) -> None:
        env = {
            "WHISPER_STANDIN_SCRIPT": str(self.script_path),
            "WHISPER_STANDIN_LOG": str(self.log),
        }
        self.proc = Process(
            "tests.helpers.whisper_server_standin", "-m", str(self.model), "--port",
            str(self.port), log_dir=self.root, env=env,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)  # polling for the server to listen, with a deadline
        raise AssertionError(f"the whisper stand-in did not start:\n{self.proc.output()}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()

    def answered(self) -> int:
        return self.log.read_text().count('"path": "/inference"') if self.log.exists() else 0
