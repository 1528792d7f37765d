"""``python -m services.tools``: the tool executor service."""

from __future__ import annotations

import sys

from services.base.names import TOOLS
from services.base.runner import run_service, service_parser
from services.tools.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(TOOLS, "Run the tools of the config folder for the assistant.")
    return run_service(TOOLS, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
