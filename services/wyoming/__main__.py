"""``python -m services.wyoming``: our STT, TTS and wake word as a Wyoming server."""

from __future__ import annotations

import sys

from services.base.names import WYOMING
from services.base.runner import run_service, service_parser
from services.wyoming.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(WYOMING, "Serve our STT, TTS and wake word over Wyoming.")
    return run_service(WYOMING, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
