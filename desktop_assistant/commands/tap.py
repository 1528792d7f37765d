"""``desktop-assistant tap``: the same as ``python -m bus.tap``."""

from __future__ import annotations

import argparse

from bus import tap


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("tap", help="print every message on the bus")
    tap.build_parser(parser)
    parser.set_defaults(func=tap.run)
    return parser
