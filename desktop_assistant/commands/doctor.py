"""``desktop-assistant doctor``: a table of every check, with the fix for each failure."""

from __future__ import annotations

import argparse
import json

from desktop_assistant.doctor import local, remote
from desktop_assistant.doctor.echo import check_echo
from desktop_assistant.doctor.result import Check, render_table
from desktop_assistant.exit_codes import ExitCode


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("doctor", help="check the config, the bus, services, devices, models")
    parser.add_argument("--json", action="store_true", help="the checks as a JSON list")
    parser.add_argument(
        "--listen", type=float, default=3.5, help="seconds to collect heartbeats (default 3.5)"
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    config, checks = local.check_config(args.config)
    if config is not None:
        checks += local.check_audio(config)
        checks += check_echo(config)
        checks += local.check_stt(config)
        checks += local.check_tts(config)
        checks += remote.run_remote(config, args.listen)
    print_checks(checks, args.json)
    return ExitCode.OK if all(c.ok for c in checks) else ExitCode.FAILED


def print_checks(checks: list[Check], as_json: bool) -> None:
    if as_json:
        rows = [
            {"name": c.name, "status": c.status, "detail": c.detail, "fix": c.fix} for c in checks
        ]
        print(json.dumps(rows, indent=2))
    else:
        print(render_table(checks))
