"""``python -m services.stt``: transcribe utterances with whisper-server or faster-whisper."""

from __future__ import annotations

import sys

from services.base.names import STT
from services.base.runner import run_service, service_parser
from services.stt.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(STT, "Transcribe each utterance; publish text and language.")
    return run_service(STT, parser.parse_args(argv), start)


if __name__ == "__main__":
    sys.exit(main())
