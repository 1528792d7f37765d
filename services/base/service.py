"""What every service repeats: one table from message type to handler, and a set of tasks.

A service lists the messages it handles once, in ``HANDLERS``; that table is
both what it subscribes to and how each message finds its handler, so the two
cannot drift apart. The table is a class attribute, so a service can subscribe
before it is built (the STT does, so that utterances sent while its model
loads wait in the inbox). Answers that only a waiting request takes
(``Bus.wait_for``: a tool's result, a played piece) are listed in ``AWAITED``:
subscribed from the start, so none is missed, and never handled from the inbox
(one that arrives after its request gave up is dropped there, logged at debug).
A message reaches a service one way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterator, Mapping
from typing import Any, ClassVar, TypeVar

from bus.client import Bus
from bus.message import Message

log = logging.getLogger(__name__)

T = TypeVar("T")
Handler = Callable[[Any, Any], object]
"""``handler(service, message)``: a method of the service, found by the message's type."""


class Tasks:
    """The service's own background tasks: kept until done, cancelled when it stops."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)  # the loop keeps only a weak reference
        task.add_done_callback(self._tasks.discard)
        return task

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(list(self._tasks))

    def __len__(self) -> int:
        return len(self._tasks)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def close(self, timeout: float | None = None) -> None:
        """Cancel every task and wait (at most ``timeout`` s) for them to finish."""
        tasks = list(self._tasks)
        self.cancel()
        if not tasks:
            return
        done, _ = await asyncio.wait(tasks, timeout=timeout)
        for task in done:  # retrieved: no "exception was never retrieved" at exit
            if not task.cancelled():
                task.exception()


class Service:
    """A bus, the table of handlers, the task set; ``serve`` hands each message to its handler."""

    HANDLERS: ClassVar[Mapping[type[Message], Handler]] = {}
    AWAITED: ClassVar[frozenset[type[Message]]] = frozenset()
    """Answers subscribed for the requests that wait for them, never handled from the inbox."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.tasks = Tasks()

    @classmethod
    def topics(cls) -> tuple[str, ...]:
        """The subscription list: the topic of every message type in the table."""
        return tuple(dict.fromkeys(kind.TOPIC for kind in (*cls.HANDLERS, *cls.AWAITED)))

    @classmethod
    def subscribe(cls, bus: Bus) -> None:
        bus.subscribe(*cls.topics())

    def handle(self, msg: Message) -> None:
        handler = self.HANDLERS.get(type(msg))
        if handler is None and type(msg) in self.AWAITED:
            log.debug("%s: %s %s came after its request stopped waiting: dropped",
                      self.bus.name, msg.TOPIC, msg.reply_to or msg.turn)
            return
        if handler is None:
            # A topic under a subscribed prefix (tools.catalog.request under tools.catalog):
            # not ours to handle.
            log.debug("%s: no handler for %s, dropped", self.bus.name, msg.TOPIC)
            return
        handler(self, msg)

    STOP_WAIT: ClassVar[float | None] = None
    """Seconds the service's tasks get to finish when it stops (None: as long as they take)."""

    async def run(self) -> None:
        """Every service's one run: subscribe, wait until the subscriptions have reached the
        broker (nothing sent to us after "ready" is missed), start, report ready, serve
        until cancelled, then stop and close the tasks."""
        self.subscribe(self.bus)
        await self.bus.wait_connected()
        await self.on_start()
        self.report_ready()
        try:
            await self.serve()
        finally:
            try:
                await self.on_stop()
            finally:
                await self.tasks.close(self.STOP_WAIT)

    async def on_start(self) -> None:
        """Once the bus is reached, before "ready": first messages, background tasks."""

    def report_ready(self) -> None:
        """The state once started; a service whose state comes from elsewhere (a device, its
        servers) overrides it."""
        self.bus.set_state("ready")

    async def on_stop(self) -> None:
        """After serving, before the tasks are closed: what the service opened."""

    async def serve(self) -> None:
        """Handle every message of the inbox until cancelled."""
        async for msg in self.bus:
            self.handle(msg)
