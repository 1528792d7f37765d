"""``desktop-assistant actions [--last N] [--json]``: what the assistant did, and who said yes.

Reads the log of actions (``settings/actions.py``) that the tools service writes as
each tool that modifies runs: when, the session, the tool, its arguments, the user's
words that confirmed it, and how it ended.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from desktop_assistant.exit_codes import ExitCode
from settings.actions import ActionLog


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "actions",
        help="list the last actions of tools that modify, with the yes that allowed each",
        description="The log of actions: every run of a tool that changes something "
        "(modifies = true), newest last, with the words that confirmed it.",
    )
    parser.add_argument("--last", type=int, default=20, metavar="N",
                        help="how many (default 20)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.last < 1:
        print("actions: --last must be at least 1")
        return ExitCode.USAGE
    log = ActionLog()
    actions = log.last(args.last)
    if not actions and not args.json:
        print(f"no actions yet ({log.path})")
    for action in actions:
        if args.json:
            print(json.dumps(asdict(action), ensure_ascii=False))
            continue
        arguments = json.dumps(action.arguments, ensure_ascii=False)
        state = "ok" if action.ok else "failed"
        session = f" [{action.session}]" if action.session else ""
        print(f"{action.when}{session} {action.tool} {arguments}: {state}")
        print(f"  confirmed by: {action.confirmed_by!r}")
        if action.result:
            print(f"  result: {action.result}")
    return ExitCode.OK
