"""``desktop-assistant keys``: CURVE key pairs for TCP between machines."""

from __future__ import annotations

import argparse
from pathlib import Path

from bus.process import load_or_exit
from bus.security import create_keys
from desktop_assistant.exit_codes import ExitCode


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("keys", help="create CURVE keys for TCP endpoints")
    parser.add_argument("action", choices=["init", "add", "list"])
    parser.add_argument("name", nargs="?", default="", help="client name for `add`")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    config = load_or_exit(args.config)
    folder = Path(config.bus.keys)
    if args.action == "list":
        allowed = sorted(p.stem for p in (folder / "allowed").glob("*.key"))
        state = "present" if (folder / "server.key").exists() else "missing"
        print(f"{folder}: server key {state}")
        print(f"allowed clients: {', '.join(allowed) or 'none'}")
        return ExitCode.OK
    name = config.bus.client if args.action == "init" else args.name
    if not name or "/" in name or name == "server":
        print("keys add NAME: give the other machine's name (letters, digits, dashes)")
        return ExitCode.USAGE
    for path in create_keys(folder, name):
        print(f"wrote {path}")
    if args.action == "add":
        print(
            f"copy {folder / (name + '.key')}, {folder / (name + '.key_secret')} and "
            f"{folder / 'server.key'} to the other machine's keys folder, and set "
            f'[bus] client = "{name}" there'
        )
    return ExitCode.OK
