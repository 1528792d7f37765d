"""``python -m services.tts_espeak``: speak the assistant's replies with espeak-ng."""

from __future__ import annotations

import sys

from services.names import SPEAKER
from services.runner import run_service, service_parser
from services.speaker.serve import add_speaker_arguments, serve_with
from services.tts_espeak.espeak import load_espeak


def main(argv: list[str] | None = None) -> int:
    parser = service_parser("tts_espeak", "Speak the assistant's replies with espeak-ng.")
    add_speaker_arguments(parser)
    return run_service(SPEAKER, parser.parse_args(argv), serve_with(load_espeak))


if __name__ == "__main__":
    sys.exit(main())
