"""``desktop-assistant history clear [--session ID]``: forget a conversation.

Through the dialogue service (``ClearHistoryRequest``), which holds the history
in memory as well as on disk: removing the file alone would not be enough.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bus.client import RequestTimeout
from bus.messages import ClearHistoryRequest, HistoryCleared
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.exit_codes import ExitCode
from services.base.names import HTTP_SESSIONS, LOCAL_SESSION

TIMEOUT = 5.0


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "history",
        help="forget a conversation",
        description="clear: forget the history of a session: the voice one (local) by "
        "default, `--session cli` for `ask`'s, `--http ID` for an HTTP client's session_id.",
    )
    parser.add_argument("action", choices=["clear"])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--session", default=LOCAL_SESSION, help="the session (default local)")
    which.add_argument("--http", metavar="ID", help="the session_id an HTTP client used")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    session = HTTP_SESSIONS + args.http if args.http is not None else args.session
    if not session.strip():
        print("history clear: the session name is empty", file=sys.stderr)
        return ExitCode.USAGE
    try:
        asyncio.run(_clear(args.config, session))
    except RequestTimeout:
        print(
            f"history clear: no dialogue service confirmed within {TIMEOUT:g} s: is it "
            "running (`honcho start`, or `python -m services.dialogue`)?",
            file=sys.stderr,
        )
        return ExitCode.UNAVAILABLE
    print(f"history of session {session} cleared")
    return ExitCode.OK


async def _clear(config: str | None, session: str) -> None:
    async with cli_bus(config) as bus:
        # Subscribed and proven before asking: a fast answer must not be lost.
        bus.subscribe(HistoryCleared.TOPIC)
        await bus.wait_connected()
        await bus.request(ClearHistoryRequest(session=session), HistoryCleared, TIMEOUT)
