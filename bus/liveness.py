"""Which services are alive, from the heartbeats seen on the bus; requests that watch them.

Whoever waits for an answer watches the heartbeats of whoever owes it:
:func:`request_watched` gives up as soon as the answering service restarts,
stops or misses three heartbeats, instead of waiting out the whole deadline.
It watches the broker's heartbeats too: a broker that stops is named as the
cause (it silences every service), and after a broker restart the request is
sent again, the same message with the same id (the ZeroMQ guide's Lazy
Pirate): the question or its answer may have been lost in the outage, and the
answerer answers a repeated id once, so a resend costs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from bus.client import Bus, RequestTimeout
from bus.message import Message
from bus.messages import Heartbeat

M = TypeVar("M", bound=Message)

log = logging.getLogger(__name__)

BROKER = "broker"
"""The name ``python -m bus`` sends its heartbeats under."""
BROKER_GRACE = 10.0
"""Heartbeat periods a broker may be silent (restarting) before a request gives up on it."""
RESENDS = 5
"""Times a request is sent again after a broker restart, one heartbeat period apart: the
answerer's subscription may reach the new broker a little after ours does."""

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

    def now(self) -> float:
        """The clock the heartbeats' ``at`` is on."""
        return self._clock()

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


class BrokerLost(AnswererLost):
    """The broker stopped beating while the answer was awaited: nobody could answer."""


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
    afterwards) is lost, :class:`BrokerLost` when the broker stops beating for good, and
    send ``msg`` again after a broker restart; ``liveness`` must be fed by the caller."""
    pid = liveness.working_pid(service)
    broker = BrokerWatch(bus, liveness, msg)
    task = asyncio.ensure_future(bus.request(msg, reply, timeout))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=check)
            if done:
                return task.result()
            broker.check(service)
            if pid is None:
                pid = liveness.working_pid(service)
                continue
            why = liveness.lost(service, pid)
            if why is not None and not broker.explains_silence(service, pid):
                raise AnswererLost(f"the {service} service {why} before answering {msg.TOPIC}")
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RequestTimeout):
                await task


class BrokerWatch:
    """The broker's side of a request: its restarts (then ``msg`` is sent again,
    :data:`RESENDS` times a heartbeat period apart) and its silence."""

    def __init__(self, bus: Bus, liveness: Liveness, msg: Message) -> None:
        self.bus = bus
        self.liveness = liveness
        self.msg = msg
        self.pid = liveness.working_pid(BROKER)
        self.back_at = 0.0
        """When the broker was last seen coming back (monotonic clock)."""
        self.resends = 0
        self.next_resend = 0.0

    def check(self, service: str) -> None:
        seen = self.liveness.last(BROKER)
        if seen is None:
            return  # no broker heard yet: nothing to judge by
        now = self.liveness.now()
        if self.pid is None or (seen.pid != self.pid and self.liveness.alive(BROKER)):
            if self.pid is not None:
                log.warning("the bus broker restarted: %s sent again", self.msg.TOPIC)
                self.resends, self.next_resend, self.back_at = RESENDS, now, now
            self.pid = seen.pid
        silent = now - seen.at
        if silent > BROKER_GRACE * seen.interval:
            raise BrokerLost(
                f"the bus broker sent no heartbeat for {silent:.1f} s before {service} answered "
                f"{self.msg.TOPIC}: it is not running (`python -m bus`, honcho or systemd "
                "start it)"
            )
        if self.resends and now >= self.next_resend:
            self.bus.publish(self.msg)
            self.resends -= 1
            self.next_resend = now + seen.interval

    def explains_silence(self, service: str, pid: int) -> bool:
        """True when ``service``'s silence is the broker's: the broker is silent too, or came
        back less than three of ``service``'s periods ago."""
        seen = self.liveness.last(service)
        if seen is None or seen.pid != pid or seen.state in GONE_STATES:
            return False  # a restart or a stop is the service's own
        broker = self.liveness.last(BROKER)
        if broker is None:
            return False
        now = self.liveness.now()
        broker_silent = now - broker.at > 1.5 * broker.interval
        return broker_silent or now - self.back_at <= MISSED_PERIODS * seen.interval
