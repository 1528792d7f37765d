"""The real broker (``python -m bus``) for a test, started and known to relay."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bus.client import Bus
from bus.endpoints import Endpoints
from tests.helpers.processes import Process


async def wait_broker(endpoints: Endpoints, timeout: float = 15.0) -> None:
    """Return once a client's probe comes back through the broker at ``endpoints``."""
    bus = Bus(endpoints, "fixture")
    try:
        await bus.wait_connected(timeout=timeout)
    finally:
        await bus.close()


def start_broker(config: Path, endpoints: Endpoints, log_dir: Path) -> Process:
    """A broker on the config folder ``config`` whose bus is ``endpoints``, relaying."""
    proc = Process("bus", "--config", str(config), log_dir=log_dir)
    try:
        asyncio.run(wait_broker(endpoints))
    except BaseException:
        proc.stop()
        raise
    return proc


@contextmanager
def running_broker(config: Path, endpoints: Endpoints, log_dir: Path) -> Iterator[Process]:
    """:func:`start_broker` for the length of a ``with`` block."""
    proc = start_broker(config, endpoints, log_dir)
    try:
        yield proc
    finally:
        proc.stop()
