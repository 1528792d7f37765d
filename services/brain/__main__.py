"""``python -m services.brain``: the HTTP API for other user interfaces, bridged onto the bus."""

from __future__ import annotations

import sys

from services.base.names import BRAIN
from services.base.runner import run_service, service_parser
from services.brain.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(BRAIN, "The HTTP API for other user interfaces.")
    return run_service(BRAIN, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
