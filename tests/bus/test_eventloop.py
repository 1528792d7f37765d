"""The services' event loop."""

from __future__ import annotations

import asyncio

import uvloop

from bus import eventloop


def test_run_gives_the_result_on_uvloop() -> None:
    async def main() -> type[asyncio.AbstractEventLoop]:
        await asyncio.sleep(0.001)
        return type(asyncio.get_running_loop())

    assert eventloop.run(main()) is uvloop.Loop


def test_run_closes_its_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        loops.append(asyncio.get_running_loop())

    eventloop.run(main())
    assert loops[0].is_closed()
