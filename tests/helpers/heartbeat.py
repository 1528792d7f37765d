"""Talk to a service process on the bus: wait until it is ready, ask it without losing replies."""

from __future__ import annotations

import time
from typing import TypeVar

from bus.client import Bus
from bus.message import Message
from bus.messages import Heartbeat
from tests.helpers.processes import Process

M = TypeVar("M", bound=Message)


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


async def request(bus: Bus, msg: Message, reply: type[M], timeout: float) -> M:
    """``bus.request`` once our subscription to the reply's topic has reached the broker.

    ``Bus.request`` subscribes to the reply topic and publishes at once; a
    service that answers within a millisecond (an unknown tool) can beat the
    fresh subscription, and the reply is lost (the slow-joiner problem).
    """
    bus.subscribe(reply.TOPIC)
    await bus.wait_connected()
    return await bus.request(msg, reply, timeout)
