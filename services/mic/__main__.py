"""``python -m services.mic``: capture, detect speech, publish utterances."""

from __future__ import annotations

import sys

from services.base.names import MIC
from services.base.runner import run_service, service_parser
from services.mic.service import start


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(MIC, "Capture from [card], run Silero VAD, publish utterances.")
    parser.add_argument(
        "--wav", nargs="+", metavar="FILE",
        help="replay audio files (WAV of any rate, mono or stereo) instead of the card, then exit",
    )
    parser.add_argument(
        "--fast", action="store_true", help="with --wav: as fast as possible, not in real time"
    )
    args = parser.parse_args(argv)
    if args.fast and not args.wav:
        parser.error("--fast only applies to --wav")
    return run_service(MIC, args, start)


if __name__ == "__main__":
    sys.exit(main())
