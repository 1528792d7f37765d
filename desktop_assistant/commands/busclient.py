"""A bus connection for one CLI command, with a clear error when no broker runs."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from bus.client import Bus, RequestTimeout
from bus.process import endpoints_of, load_or_exit
from desktop_assistant.exit_codes import ExitCode


class NoBroker(SystemExit):
    pass


@contextlib.asynccontextmanager
async def cli_bus(config_dir: str | None, timeout: float = 3.0) -> AsyncIterator[Bus]:
    config = load_or_exit(config_dir)
    endpoints = endpoints_of(config)
    bus = Bus(endpoints, "cli")
    try:
        try:
            await bus.wait_connected(timeout=timeout)
        except RequestTimeout:
            import sys

            print(
                f"no bus broker answers at {endpoints.pub}: start the assistant "
                "(`honcho start`, or `python -m bus`) or check [bus] in the config",
                file=sys.stderr,
            )
            raise NoBroker(ExitCode.UNAVAILABLE) from None
        yield bus
    finally:
        await bus.close()
