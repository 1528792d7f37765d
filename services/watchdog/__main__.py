"""``python -m services.watchdog``: speak an apology for voice turns lost by a dying stage."""

from __future__ import annotations

import argparse
import sys

from bus.client import Bus
from services.runner import run_service, service_parser
from services.watchdog.service import Watchdog
from settings import Config


async def main(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    await Watchdog(bus, config).run()


if __name__ == "__main__":
    parser = service_parser("watchdog", "Follow voice turns; apologize for those a stage lost.")
    sys.exit(run_service("watchdog", parser.parse_args(), main))
