"""``desktop-assistant``: the everyday commands, one module each under ``commands/``."""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib import metadata

from bus.process import add_common_arguments
from desktop_assistant.exit_codes import ExitCode
from desktop_assistant.parsing import IntermixedParser

COMMANDS = [
    "ask", "say", "listen", "volume", "history", "config", "tap", "doctor", "ready", "tools",
    "actions", "remind", "keys", "systemd", "models",
]
"""Subcommand modules in ``desktop_assistant.commands``, in the order of ``--help``."""


def installed_version() -> str:
    """The version pip installed (``pip install -e .`` records it from pyproject.toml)."""
    try:
        return metadata.version("desktop-assistant")
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="desktop-assistant", description="A local, private voice assistant."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=IntermixedParser
    )
    for name in COMMANDS:
        module = importlib.import_module(f"desktop_assistant.commands.{name}")
        command = module.register(sub)
        add_common_arguments(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # `desktop-assistant tap | head`
        return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main())
