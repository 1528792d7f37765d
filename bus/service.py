"""What every process's ``__main__`` shares: arguments, logging, signals, bus, heartbeat."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable

from bus.client import Bus, RequestTimeout
from bus.endpoints import EndpointError, Endpoints, resolve
from desktop_assistant.config import Config, ConfigError, load_config

log = logging.getLogger(__name__)

ServiceMain = Callable[[Bus, Config, argparse.Namespace], Awaitable[None]]


def service_parser(name: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"python -m services.{name}", description=description)
    add_common_arguments(parser)
    return parser


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="DIR", help="config folder (default: XDG location)")
    parser.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING (default INFO)")


def setup_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )


def endpoints_of(config: Config) -> Endpoints:
    bus = config.bus
    endpoints = resolve(bus.pub, bus.sub, bus.keys, bus.client, bus.plain_tcp)
    if endpoints.curve is None and "tcp://" in bus.pub + bus.sub:
        log.warning("bus: plain TCP allowed by [bus] plain_tcp: traffic is unencrypted")
    return endpoints


def load_or_exit(folder: str | None) -> Config:
    try:
        return load_config(folder)[0]
    except ConfigError as exc:
        print(f"config error:\n{exc}", file=sys.stderr)
        raise SystemExit(2) from None


async def connect(bus: Bus, name: str) -> None:
    """Wait (without giving up) until the broker carries our probe back."""
    while True:
        try:
            await bus.wait_connected(timeout=5.0)
            return
        except RequestTimeout:
            log.warning("%s: waiting for the bus broker at %s", name, bus.endpoints.pub)


def run_service(name: str, args: argparse.Namespace, main: ServiceMain) -> int:
    """Run ``main(bus, config, args)`` until it returns or SIGTERM/SIGINT arrives."""
    setup_logging(args.log_level)
    config = load_or_exit(args.config)
    try:
        endpoints = endpoints_of(config)
    except EndpointError as exc:
        log.error("%s: %s", name, exc)
        return 2
    return asyncio.run(_run(name, endpoints, config, args, main))


async def _run(
    name: str, endpoints: Endpoints, config: Config, args: argparse.Namespace, main: ServiceMain
) -> int:
    loop = asyncio.get_running_loop()
    bus = Bus(endpoints, name)
    task = asyncio.current_task()
    stopping = False

    def stop(signum: int) -> None:
        nonlocal stopping
        log.info("%s: %s received, stopping", name, signal.Signals(signum).name)
        stopping = True
        if task is not None:
            task.cancel()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    try:
        await connect(bus, name)
        bus.start_heartbeat(config.bus.heartbeat)
        await main(bus, config, args)
        return 0
    except asyncio.CancelledError:
        if not stopping:
            raise
        return 0
    finally:
        bus.set_state("stopping")
        with contextlib.suppress(Exception):
            bus.beat(config.bus.heartbeat)
        await bus.close()
        log.info("%s: stopped", name)
