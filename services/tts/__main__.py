"""``python -m services.tts``: speak the assistant's replies with Kokoro."""

from __future__ import annotations

import sys

from services.names import SPEAKER
from services.runner import run_service, service_parser
from services.speaker.serve import add_speaker_arguments, serve_with
from services.tts.kokoro_voice import load_kokoro


def main(argv: list[str] | None = None) -> int:
    parser = service_parser("tts", "Speak the assistant's replies with Kokoro.")
    add_speaker_arguments(parser)
    return run_service(SPEAKER, parser.parse_args(argv), serve_with(load_kokoro))


if __name__ == "__main__":
    sys.exit(main())
