"""Wait for a condition outside the bus (a file, a counter, a client's state)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def until(condition: Callable[[], bool], what: str = "", timeout: float = 10.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` when ``timeout`` passes.

    For messages, wait for the message instead (``Bus.wait_for``): polling is for
    things that send none.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what or condition}")
        await asyncio.sleep(0.005)
