"""The Wyoming server announced with zeroconf, found by a browser on the same host as Home
Assistant finds it (``_wyoming._tcp.local.``), and withdrawn when the server stops."""

from __future__ import annotations

import asyncio

from zeroconf import ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from bus.client import Bus
from tests.helpers.busrun import with_buses
from tests.helpers.ports import free_port
from tests.helpers.service_stack import Stack, wait_state

TYPE = "_wyoming._tcp.local."
NAME = f"desktop-assistant.{TYPE}"


def test_the_server_is_announced_with_its_port_and_withdrawn_at_stop() -> None:
    port = free_port()
    stack = Stack(f"[wyoming]\nenabled = true\nport = {port}\nzeroconf = true\n")
    try:
        wyoming = stack.start("services.wyoming")

        async def ready(bus: Bus) -> None:
            await wait_state(bus, "wyoming", "ready", timeout=60)

        with_buses(stack.endpoints, ["test"], ready)

        async def browse() -> tuple[AsyncServiceInfo, list[tuple[str, ServiceStateChange]]]:
            changes: asyncio.Queue[tuple[str, ServiceStateChange]] = asyncio.Queue()

            def changed(zeroconf: Zeroconf, service_type: str, name: str,
                        state_change: ServiceStateChange) -> None:
                changes.put_nowait((name, state_change))

            browser_zc = AsyncZeroconf(interfaces=["127.0.0.1"])
            browser = AsyncServiceBrowser(browser_zc.zeroconf, TYPE, handlers=[changed])
            seen = []
            try:
                async with asyncio.timeout(30):
                    seen.append(await changes.get())
                    info = AsyncServiceInfo(TYPE, NAME)
                    assert await info.async_request(browser_zc.zeroconf, 5000)
                    await asyncio.to_thread(wyoming.stop)  # its goodbye withdraws the name
                    while seen[-1][1] != ServiceStateChange.Removed:
                        seen.append(await changes.get())
                return info, seen
            finally:
                await browser.async_cancel()
                await browser_zc.async_close()

        info, seen = asyncio.run(browse())
    finally:
        stack.close()
    assert seen[0] == (NAME, ServiceStateChange.Added)
    assert seen[-1] == (NAME, ServiceStateChange.Removed)
    assert info.port == port
    assert info.parsed_addresses() == ["127.0.0.1"]  # the host it listens on
