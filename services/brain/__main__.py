"""``python -m services.brain``: the HTTP API for other user interfaces, bridged onto the bus."""

from __future__ import annotations

import sys

from bus.process import load_or_exit
from services.brain.server import listen
from services.brain.service import serve_on
from services.names import BRAIN
from services.runner import run_service, service_parser
from settings.startup import brain_problems


def start(argv: list[str] | None = None) -> int:
    parser = service_parser(BRAIN, "The HTTP API for other user interfaces.")
    args = parser.parse_args(argv)
    config = load_or_exit(args.config)
    for problem in brain_problems(config.brain):  # `config check` reports the same
        print(f"brain: refusing to start: {problem}", file=sys.stderr)
        return 2
    try:
        sock = listen(config.brain.host, config.brain.port)
    except OSError as exc:
        print(f"brain: {exc}", file=sys.stderr)
        return 2
    with sock:
        return run_service(BRAIN, args, serve_on(sock))


if __name__ == "__main__":
    sys.exit(start())
