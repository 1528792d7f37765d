"""``python -m services.tts [--engine kokoro|espeak]``: speak the assistant's replies."""

from __future__ import annotations

import sys

from services.base.names import SPEAKER
from services.base.runner import run_service, service_parser
from services.tts.service import add_speaker_arguments, start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(
        "tts", "Speak the assistant's replies with Kokoro, or with espeak-ng (--engine espeak)."
    )
    add_speaker_arguments(parser)
    args = parser.parse_args(argv)
    return run_service(SPEAKER, args, start)


if __name__ == "__main__":
    sys.exit(main())
