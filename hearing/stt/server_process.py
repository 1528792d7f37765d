"""Start whisper-server from ``[whisper]``, wait until it has loaded, restart it when it dies."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable

from hearing.stt.server_client import WhisperServerClient
from settings.schema import WhisperConfig

log = logging.getLogger(__name__)

BACKOFF = (1.0, 30.0)
"""First and longest wait before starting whisper-server again."""
STABLE = 60.0
"""Seconds of good health after which the backoff starts over."""
POLL = 0.2
"""Seconds between ``/health`` polls while the model loads."""


def server_command(binary: str, config: WhisperConfig) -> list[str]:
    command = [binary, "-m", config.model, "--host", config.host, "--port", str(config.port)]
    command += ["-l", config.language]
    if config.device:  # older builds lack the flag; device 0 is their default anyway
        command += ["-dev", str(config.device)]
    return command


class ServerProcess:
    """Keeps one whisper-server alive, reporting its health as the service's state."""

    def __init__(
        self,
        binary: str,
        config: WhisperConfig,
        client: WhisperServerClient,
        report: Callable[[str, str], None],
    ) -> None:
        self.command = server_command(binary, config)
        self.start_timeout = config.start_timeout
        self.client = client
        self.report = report
        self.proc: asyncio.subprocess.Process | None = None
        self.output: collections.deque[str] = collections.deque(maxlen=20)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._keep_alive())

    async def _keep_alive(self) -> None:
        delay = BACKOFF[0]
        while True:
            began = time.monotonic()
            reason = await self._run_once()
            if time.monotonic() - began > STABLE:
                delay = BACKOFF[0]
            tail = " | ".join(list(self.output)[-3:])
            log.error("whisper-server %s; starting it again in %.0f s (%s)", reason, delay, tail)
            self.report("degraded", f"whisper-server {reason}"[:200])
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF[1])

    async def _run_once(self) -> str:
        """Start the server, wait for health, watch it; return why it is gone."""
        self.output.clear()
        log.info("starting %s", " ".join(self.command))
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            return f"could not start: {exc}"
        reader = asyncio.ensure_future(self._read_output(self.proc))
        try:
            if not await self._wait_healthy(self.proc):
                if self.proc.returncode is None:
                    await self._stop(self.proc)
                    return f"did not load its model within {self.start_timeout:g} s"
                return f"exited with code {self.proc.returncode} while loading"
            log.info("whisper-server is ready at %s (pid %d)", self.client.url, self.proc.pid)
            self.report("ready", "")
            code = await self.proc.wait()
            return f"exited with code {code}"
        finally:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader, 2.0)

    async def _wait_healthy(self, proc: asyncio.subprocess.Process) -> bool:
        deadline = time.monotonic() + self.start_timeout
        while proc.returncode is None and time.monotonic() < deadline:
            if await self.client.health() == "ok":
                return True
            # Polling with a deadline: whisper-server has no readiness signal but /health.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), POLL)
        return False

    async def _read_output(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        async for raw in proc.stdout:
            line = raw.decode(errors="replace").rstrip()
            if line:
                self.output.append(line)
                log.debug("whisper-server: %s", line)

    async def _stop(self, proc: asyncio.subprocess.Process) -> None:
        """SIGTERM to its process group, SIGKILL after 5 s."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 5.0)
            except TimeoutError:
                os.killpg(proc.pid, signal.SIGKILL)
                await asyncio.wait_for(proc.wait(), 5.0)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.proc is not None and self.proc.returncode is None:
            await self._stop(self.proc)
