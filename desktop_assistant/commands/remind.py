"""``desktop-assistant remind WHEN TEXT``: the assistant says TEXT at WHEN and shows it as a
desktop notification.

Through the dialogue service (``ReminderRequest``), which keeps reminders with its
timers: they survive a restart, and one that came due while it was down is said
when it is back. A tool can call this command (``examples/tools/remind.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from datetime import datetime, timedelta

from bus.client import RequestTimeout
from bus.messages import ReminderRequest, ReminderSet
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.exit_codes import ExitCode

TIMEOUT = 5.0
CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
IN = re.compile(r"^\+(\d{1,6})([smhd])$")
UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
WHEN_HELP = "HH:MM (the next time the clock shows it), an ISO date and time " \
    "(2026-12-24T09:30, local unless it names an offset), or +N followed by s, m, h or d"


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "remind",
        help="be reminded of something at a time, aloud and on the desktop",
        description="The assistant says TEXT at WHEN (kept with its timers, so a restart "
        "keeps it) and shows it as a desktop notification.",
    )
    parser.add_argument("when", help=WHEN_HELP)
    parser.add_argument("text", nargs="*", help="what to be reminded of")
    parser.add_argument("--text", dest="text_option", metavar="TEXT",
                        help="the same, as one option (--text=... for words that begin with -)")
    parser.add_argument("--lang", help="the language it is said in (default: the assistant's)")
    parser.set_defaults(func=run)
    return parser


def when_of(text: str, now: datetime) -> datetime:
    """The aware local time ``text`` names; ValueError with the accepted forms when none."""
    text = text.strip()
    now = now.astimezone()
    if clock := CLOCK.match(text):
        hour, minute = int(clock[1]), int(clock[2])
        if hour > 23 or minute > 59:
            raise ValueError(f"{text!r} is not a time of day")
        at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        return at if at > now else at + timedelta(days=1)
    if later := IN.match(text):
        return now + timedelta(seconds=int(later[1]) * UNIT[later[2]])
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r}: expected {WHEN_HELP}") from None
    return at.astimezone() if at.tzinfo else at.replace(tzinfo=now.tzinfo)


def run(args: argparse.Namespace) -> int:
    try:
        at = when_of(args.when, datetime.now())
    except ValueError as exc:
        print(f"remind: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    text = args.text_option or " ".join(args.text)
    if not text.strip():
        print("remind: what should I remind you of? (TEXT, or --text=TEXT)", file=sys.stderr)
        return ExitCode.USAGE
    try:
        answer = asyncio.run(_remind(args.config, at.timestamp(), text, args.lang))
    except RequestTimeout:
        print(f"remind: no dialogue service answered within {TIMEOUT:g} s: is it running "
              "(`honcho start`, or `python -m services.dialogue`)?", file=sys.stderr)
        return ExitCode.UNAVAILABLE
    if answer.problem:
        print(f"remind: not set: {answer.problem}", file=sys.stderr)
        return ExitCode.FAILED
    print(f"reminder set for {at:%Y-%m-%d %H:%M}: {text}")
    return ExitCode.OK


async def _remind(config: str | None, at: float, text: str, lang: str | None) -> ReminderSet:
    async with cli_bus(config) as bus:
        bus.subscribe(ReminderSet.TOPIC)  # subscribed and proven before asking
        await bus.wait_connected()
        return await bus.request(ReminderRequest(at=at, text=text, lang=lang), ReminderSet,
                                 TIMEOUT)
