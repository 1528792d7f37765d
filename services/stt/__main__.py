"""``python -m services.stt``: transcribe utterances with whisper-server or faster-whisper."""

from __future__ import annotations

import sys

from services.runner import run_service, service_parser
from services.stt.run import main as service_main


def main() -> int:
    parser = service_parser("stt", "Transcribe each utterance; publish text and language.")
    return run_service("stt", parser.parse_args(), service_main)


if __name__ == "__main__":
    sys.exit(main())
