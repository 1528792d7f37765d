"""Wait for a service process to say it is ready, through its heartbeats on the bus."""

from __future__ import annotations

import time

from bus.client import Bus
from bus.messages import Heartbeat
from tests.helpers.processes import Process


async def wait_ready(bus: Bus, proc: Process, timeout: float = 30.0) -> None:
    """Until ``proc``'s heartbeat says ready; fails at once (with its log) if it exited."""
    deadline = time.monotonic() + timeout
    bus.subscribe(Heartbeat.TOPIC)
    while time.monotonic() < deadline:
        if proc.popen.poll() is not None:
            raise AssertionError(f"{proc.module} exited:\n{proc.output()}")
        msg = await bus.recv(timeout=0.5)
        if isinstance(msg, Heartbeat) and msg.pid == proc.pid and msg.state == "ready":
            return
    raise AssertionError(f"{proc.module} never became ready:\n{proc.output()}")
