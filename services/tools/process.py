"""Run one sandboxed process: own session, limits, capped output, the whole group killed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

WRAPPER = str(Path(__file__).with_name("sandbox_exec.py"))
STDERR_TAIL = 4096
"""Bytes of stderr kept: enough for its last lines."""
GROUP_POLL = 0.2
"""Seconds between two counts of a run's processes."""
DRAIN_TIMEOUT = 2.0
"""Seconds to wait for the pipes to close once the group is dead."""


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int
    memory_mb: int
    file_size_mb: int
    processes: int
    output_bytes: int


@dataclass(frozen=True)
class Finished:
    """How a run ended: its exit status, its output, and why we stopped it, if we did."""

    returncode: int
    stdout: bytes
    stderr_tail: bytes
    stopped: str | None


class CannotStart(Exception):
    """The sandbox process could not be created at all."""


class _Sink(asyncio.Protocol):
    """Collects a pipe: the head up to ``cap`` bytes (then calls ``overflow``), or the tail."""

    def __init__(self, cap: int, keep_tail: bool, overflow: Callable[[], None] | None) -> None:
        self.data = bytearray()
        self.cap = cap
        self.keep_tail = keep_tail
        self.overflow = overflow
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.ReadTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.data += data
        if len(self.data) <= self.cap:
            return
        if self.keep_tail:
            del self.data[: len(self.data) - self.cap]
        elif self.overflow is not None:
            del self.data[self.cap :]
            self.overflow()
            self.overflow = None
            if self.transport is not None:
                self.transport.close()  # the writers get EPIPE; we read nothing more

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def group_size(pgid: int) -> int:
    """Processes whose process group is ``pgid`` (from /proc)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode():
            count += 1
    return count


async def _pipe(sink: _Sink) -> int:
    """A pipe whose read end feeds ``sink``; returns the write end for the child."""
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb", buffering=0)
    try:
        await asyncio.get_running_loop().connect_read_pipe(lambda: sink, reader)
    except BaseException:
        reader.close()
        os.close(write_fd)
        raise
    return write_fd


async def run_sandboxed(
    argv: list[str], *, env: Mapping[str, str], cwd: str, timeout: float, limits: Limits
) -> Finished:
    """Run ``argv`` under ``limits``; never leaves a process of its group behind."""
    stopped: list[str] = []
    proc: asyncio.subprocess.Process | None = None

    def stop(reason: str) -> None:
        if not stopped:
            stopped.append(reason)
        if proc is not None:
            kill_group(proc.pid)

    out = _Sink(
        limits.output_bytes,
        keep_tail=False,
        overflow=lambda: stop(f"output passed {limits.output_bytes} bytes, the tool was stopped"),
    )
    err = _Sink(STDERR_TAIL, keep_tail=True, overflow=None)
    wrapped = [sys.executable, "-I", "-S", WRAPPER]
    wrapped += [str(limits.cpu_seconds), str(limits.memory_mb), str(limits.file_size_mb)]
    wrapped += [str(limits.processes), "--", *argv]
    out_fd = err_fd = -1
    try:
        out_fd = await _pipe(out)
        err_fd = await _pipe(err)
        proc = await asyncio.create_subprocess_exec(
            *wrapped,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out_fd,
            stderr=err_fd,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
    except BaseException as exc:
        _close_sinks(out, err)
        if isinstance(exc, OSError):  # E2BIG: an argument too long for exec, EMFILE...
            raise CannotStart(exc.strerror or str(exc)) from None
        if isinstance(exc, ValueError):  # a NUL byte in the environment
            raise CannotStart(str(exc)) from None
        raise
    finally:
        for fd in (out_fd, err_fd):
            if fd >= 0:
                os.close(fd)  # the child has its copies; EOF comes when its group is gone
    watcher = asyncio.ensure_future(_watch_group(proc.pid, limits.processes, stop))
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            stop(f"timed out after {timeout:g} s")
            await proc.wait()
    finally:
        watcher.cancel()
        kill_group(proc.pid)  # whatever the tool left running in its group dies with the call
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await asyncio.wait([out.closed, err.closed], timeout=DRAIN_TIMEOUT)
        _close_sinks(out, err)  # a process that left our group may still hold the pipes
    assert proc.returncode is not None
    reason = stopped[0] if stopped else None
    return Finished(proc.returncode, bytes(out.data), bytes(err.data), reason)


def _close_sinks(*sinks: _Sink) -> None:
    for sink in sinks:
        if sink.transport is not None:
            sink.transport.close()


async def _watch_group(pgid: int, most: int, stop: Callable[[str], None]) -> None:
    """Stop the run when its group holds more than ``most`` processes.

    RLIMIT_NPROC counts all the user's processes and does not bind root, so
    the count of the run's own group is checked here as well.
    """
    while True:
        await asyncio.sleep(GROUP_POLL)
        if group_size(pgid) > most:
            stop(f"started more than {most} processes, the tool was stopped")
            return
