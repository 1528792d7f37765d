"""Run a coroutine against bus clients connected to the test's broker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bus.client import Bus
from bus.endpoints import Endpoints

T = TypeVar("T")


def with_buses(
    endpoints: Endpoints,
    names: list[str],
    body: Callable[..., Awaitable[T]],
    *,
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
    **kwargs: Any,
) -> T:
    """``asyncio.run(body(*buses))`` with connected buses, closed afterwards.

    ``loop_factory`` picks the event loop (default asyncio's own, as the CLI
    commands run; :func:`bus.eventloop.new_loop` is the services' uvloop).
    """

    async def main() -> T:
        buses = [Bus(endpoints, name, **kwargs) for name in names]
        try:
            for bus in buses:
                await bus.wait_connected(timeout=10)
            return await body(*buses)
        finally:
            for bus in buses:
                await bus.close()

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(main())
