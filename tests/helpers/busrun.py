"""Run a coroutine against bus clients connected to the test's broker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bus.client import Bus
from bus.endpoints import Endpoints

T = TypeVar("T")


def with_buses(
    endpoints: Endpoints, names: list[str], body: Callable[..., Awaitable[T]], **kwargs: Any
) -> T:
    """``asyncio.run(body(*buses))`` with connected buses, closed afterwards."""

    async def main() -> T:
        buses = [Bus(endpoints, name, **kwargs) for name in names]
        try:
            for bus in buses:
                await bus.wait_connected(timeout=10)
            return await body(*buses)
        finally:
            for bus in buses:
                await bus.close()

    return asyncio.run(main())
