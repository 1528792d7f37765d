"""``python -m services.watchdog``: speak an apology for voice turns lost by a dying stage."""

from __future__ import annotations

import sys

from services.base.names import WATCHDOG
from services.base.runner import run_service, service_parser
from services.watchdog.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(WATCHDOG, "Follow voice turns; apologize for those a stage lost.")
    return run_service(WATCHDOG, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
