"""Tool slots shared fairly between callers: one peer's flood cannot hold another's call.

Every call belongs to its caller (the ``src`` of the request: the bus name of the
process that sent it). A caller may have at most ``queue`` calls waiting or running
(more are refused at once, so that a flood costs the service nothing but the refusals)
and may run at most half the slots at a time: the other half stays free for the other
callers however many calls one of them sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class TooManyCalls(Exception):
    """The caller already has its whole queue of calls waiting or running."""


class CallerSlots:
    def __init__(self, slots: int, queue: int) -> None:
        self.queue = queue
        self.share = max(1, slots // 2)
        """Most slots one caller runs at once."""
        self._slots = asyncio.Semaphore(slots)
        self._shares: dict[str, asyncio.Semaphore] = {}
        self._pending: dict[str, int] = {}

    def admit(self, caller: str) -> None:
        """Count a call of ``caller`` in, or raise :class:`TooManyCalls`."""
        pending = self._pending.get(caller, 0)
        if pending >= self.queue:
            raise TooManyCalls(
                f"too many calls of {caller or 'an unnamed caller'} are waiting "
                f"({self.queue}); this one was refused"
            )
        self._pending[caller] = pending + 1
        if caller not in self._shares:
            self._shares[caller] = asyncio.Semaphore(self.share)

    @asynccontextmanager
    async def slot(self, caller: str) -> AsyncIterator[None]:
        """Hold a slot for an admitted call of ``caller``: first its own share, then a slot."""
        try:
            async with self._shares[caller], self._slots:
                yield
        finally:
            self._pending[caller] -= 1
            if not self._pending[caller]:  # idle callers cost nothing
                del self._pending[caller], self._shares[caller]
