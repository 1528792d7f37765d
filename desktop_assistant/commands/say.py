"""``desktop-assistant say TEXT [--lang L]``: speak a text through the running TTS service."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bus.client import RequestTimeout
from bus.message import new_id
from bus.messages import Heartbeat, Speaking, SpeakRequest
from bus.process import load_or_exit
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.exit_codes import ExitCode
from services.base.names import SPEAKER

TTS = SPEAKER
"""The bus name both TTS services use."""


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("say", help="speak a text through the running TTS service")
    parser.add_argument("text")
    parser.add_argument("--lang", help="language of the text (default: [audio] default_lang)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if not args.text.strip():
        print("nothing to say", file=sys.stderr)
        return ExitCode.USAGE
    lang = args.lang or load_or_exit(args.config).audio.default_lang
    try:
        asyncio.run(_say(args.config, args.text, lang))
    except RequestTimeout as exc:
        print(exc, file=sys.stderr)
        return ExitCode.UNAVAILABLE
    return ExitCode.OK


async def _say(config: str | None, text: str, lang: str) -> None:
    async with cli_bus(config) as bus:
        bus.subscribe(Speaking.TOPIC)  # in place before the SpeakRequest goes out (see volume.py)
        await bus.wait_connected()
        try:
            await bus.wait_for(Heartbeat, lambda h: h.service == TTS, timeout=2.5)
        except RequestTimeout:
            raise RequestTimeout(
                "no TTS service is running: start `python -m services.tts`"
            ) from None
        turn = new_id()
        say = SpeakRequest(text=text, lang=lang, kind="notice", final=True, turn=turn)
        try:
            # Not a request with an answer: the turn's end of playing is what we wait for.
            bus.publish(say)  # the waiter below is in place before any message is read
            await bus.wait_for(
                Speaking, lambda m: m.turn == turn and not m.speaking, timeout=15 + 0.2 * len(text)
            )
        except RequestTimeout:
            raise RequestTimeout("the TTS service did not finish speaking in time") from None
