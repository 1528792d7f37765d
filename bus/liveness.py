"""Which services are alive, from the heartbeats seen on the bus; requests that watch them.

Whoever waits for an answer watches the heartbeats of whoever owes it:
:func:`request_watched` gives up as soon as the answering service restarts,
stops or misses three heartbeats, instead of waiting out the whole deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from bus.client import Bus, RequestTimeout
from bus.message import Message
from bus.messages import Heartbeat

M = TypeVar("M", bound=Message)

MISSED_PERIODS = 3.0
"""A service is down after this many heartbeat periods without one."""
GONE_STATES = ("starting", "stopping")
"""States of a process that is not (or no longer) doing work."""


@dataclass(frozen=True)
class Seen:
    state: str
    interval: float
    detail: str
    at: float
    """When it arrived, on the monotonic clock."""
    pid: int = 0


class Liveness:
    """Feed it every :class:`Heartbeat`; ask whether a service beat recently enough."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._seen: dict[str, Seen] = {}

    def saw(self, beat: Heartbeat) -> bool:
        """Record ``beat``; True when it comes from another process than the last one did."""
        before = self._seen.get(beat.service)
        self._seen[beat.service] = Seen(
            beat.state, beat.interval, beat.detail, self._clock(), beat.pid
        )
        return before is not None and before.pid != beat.pid

    def last(self, service: str) -> Seen | None:
        return self._seen.get(service)

    def services(self) -> list[str]:
        return sorted(self._seen)

    def alive(self, service: str, within: float | None = None, periods: float = 3.0) -> bool:
        """A heartbeat within ``within`` seconds (default ``periods`` of its own interval),
        from a service that is not stopping."""
        seen = self._seen.get(service)
        if seen is None or seen.state == "stopping":
            return False
        limit = within if within is not None else periods * seen.interval
        return self._clock() - seen.at <= limit

    def silent_for(self, service: str) -> float:
        """Seconds since the last heartbeat of ``service`` (infinite when never seen)."""
        seen = self._seen.get(service)
        return float("inf") if seen is None else self._clock() - seen.at

    def lost(self, service: str, pid: int) -> str | None:
        """Why process ``pid`` of ``service`` can no longer be counted on, or None if it can."""
        seen = self._seen.get(service)
        if seen is None:
            return None
        if seen.pid != pid:
            return f"restarted (pid {pid} is now pid {seen.pid})"
        if seen.state in GONE_STATES:
            return f"is {seen.state}"
        silent = self._clock() - seen.at
        if silent > MISSED_PERIODS * seen.interval:
            return f"sent no heartbeat for {silent:.1f} s"
        return None

    def working_pid(self, service: str) -> int | None:
        """The pid of ``service`` if it is alive and not starting or stopping."""
        seen = self._seen.get(service)
        if seen is None or seen.state in GONE_STATES or not self.alive(service):
            return None
        return seen.pid


class AnswererLost(RequestTimeout):
    """The service that owed the answer restarted, stopped or went silent meanwhile."""


async def request_watched(
    bus: Bus,
    liveness: Liveness,
    service: str,
    msg: Message,
    reply: type[M],
    timeout: float,
    check: float = 0.2,
) -> M:
    """:meth:`Bus.request`, but raise :class:`AnswererLost` as soon as the process of
    ``service`` that was working when the request went out (or the first one seen working
    afterwards) is lost; ``liveness`` must be fed by the caller meanwhile."""
    pid = liveness.working_pid(service)
    task = asyncio.ensure_future(bus.request(msg, reply, timeout))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=check)
            if done:
                return task.result()
            if pid is None:
                pid = liveness.working_pid(service)
                continue
            why = liveness.lost(service, pid)
            if why is not None:
                raise AnswererLost(f"the {service} service {why} before answering {msg.TOPIC}")
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RequestTimeout):
                await task
