"""``python -m services.dialogue``: the streaming LLM tool loop."""

from __future__ import annotations

import sys

from services.base.names import DIALOGUE
from services.base.runner import run_service, service_parser
from services.dialogue.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(DIALOGUE, "Answer transcripts and asks with the LLM and the tools.")
    return run_service(DIALOGUE, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
