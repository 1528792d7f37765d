"""Which services are alive, from the heartbeats seen on the bus."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bus.messages import Heartbeat


@dataclass(frozen=True)
class Seen:
    state: str
    interval: float
    detail: str
    at: float
    """When it arrived, on the monotonic clock."""


class Liveness:
    """Feed it every :class:`Heartbeat`; ask whether a service beat recently enough."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._seen: dict[str, Seen] = {}

    def saw(self, beat: Heartbeat) -> None:
        self._seen[beat.service] = Seen(beat.state, beat.interval, beat.detail, self._clock())

    def last(self, service: str) -> Seen | None:
        return self._seen.get(service)

    def alive(self, service: str, within: float | None = None, periods: float = 3.0) -> bool:
        """A heartbeat within ``within`` seconds (default ``periods`` of its own interval),
        from a service that is not stopping."""
        seen = self._seen.get(service)
        if seen is None or seen.state == "stopping":
            return False
        limit = within if within is not None else periods * seen.interval
        return self._clock() - seen.at <= limit
