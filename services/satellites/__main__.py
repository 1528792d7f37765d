"""``python -m services.satellites``: serve each configured Wyoming satellite."""

from __future__ import annotations

import sys

from services.base.names import SATELLITES
from services.base.runner import run_service, service_parser
from services.satellites.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(SATELLITES, "Answer the questions of each Wyoming satellite.")
    return run_service(SATELLITES, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
