"""The event loop every service runs on: uvloop (libuv's loop, in C)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def new_loop() -> asyncio.AbstractEventLoop:
    """A new event loop of the kind the services run (benchmarks measure on it too).

    Why not asyncio's own: every bus message wakes a reader callback and then
    the task waiting for it, and asyncio runs each of those steps through its
    Python loop; uvloop's are in C. That is a third of what a message costs
    the receiving process after the wake-up (docs/performance.md, the bus).
    """
    return uvloop.new_event_loop()


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on :func:`new_loop`."""
    with asyncio.Runner(loop_factory=new_loop) as runner:
        return runner.run(main)
