"""``desktop-assistant volume [get|up|down|set V]``: the playback volume, through the bus."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bus.client import RequestTimeout
from bus.messages import VolumeRequest, VolumeState
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.exit_codes import ExitCode

TIMEOUT = 3.0


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("volume", help="print or change the playback volume (0.0-2.0)")
    parser.add_argument("action", nargs="?", default="get", choices=["get", "up", "down", "set"])
    parser.add_argument("value", nargs="?", type=float, help="for set: 0.0 to 2.0")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.action == "set" and (args.value is None or not 0.0 <= args.value <= 2.0):
        print("volume set needs a value from 0.0 to 2.0, e.g. `volume set 0.8`", file=sys.stderr)
        return ExitCode.USAGE
    if args.action != "set" and args.value is not None:
        print(f"volume {args.action} takes no value", file=sys.stderr)
        return ExitCode.USAGE
    try:
        volume = asyncio.run(_ask(args.config, args.action, args.value))
    except RequestTimeout:
        print("no TTS service answered: is `tts` running (`python -m services.tts`)?",
              file=sys.stderr)
        return ExitCode.UNAVAILABLE
    print(f"{volume:.1f}")
    return ExitCode.OK


async def _ask(config: str | None, action: str, value: float | None) -> float:
    async with cli_bus(config) as bus:
        # Subscribe and prove it before asking: a reply faster than a new subscription
        # reaching the broker would be lost (bus.request subscribes only as it sends).
        bus.subscribe(VolumeState.TOPIC)
        await bus.wait_connected()
        command = VolumeRequest(action=action, value=value)
        state = await bus.request(
            command, VolumeState, TIMEOUT
        )
        return state.volume
