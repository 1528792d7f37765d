"""What every process of the bus shares: arguments, logging, config, connecting.

The broker, the tap, the services and the command line all start the same way;
the service runner on top of this (``services/base/runner.py``) adds signals and
heartbeats.
"""

from __future__ import annotations

import argparse
import logging
import sys

from bus.client import Bus, RequestTimeout
from bus.endpoints import Endpoints, is_abstract, resolve
from bus.logs import LEVEL_ENV, level_word
from settings import Config, ConfigError, load_config
from settings.schema import LOG_LEVELS

log = logging.getLogger(__name__)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="DIR", help="config folder (default: XDG location)")
    parser.add_argument(
        "--log-level",
        type=level_word,
        metavar="LEVEL",
        help=f"{', '.join(LOG_LEVELS)} (default: ${LEVEL_ENV}, else [log] level, else INFO)",
    )


def endpoints_of(config: Config) -> Endpoints:
    bus = config.bus
    endpoints = resolve(
        bus.pub, bus.sub, bus.keys, bus.client, bus.plain_tcp, bus.allow_abstract_ipc
    )
    if endpoints.curve is None and "tcp://" in bus.pub + bus.sub:
        log.warning("bus: plain TCP allowed by [bus] plain_tcp: traffic is unencrypted")
    if is_abstract(endpoints.pub) or is_abstract(endpoints.sub):
        log.warning("bus: abstract ipc allowed by [bus] allow_abstract_ipc: any local user can "
                    "connect to the bus")
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
