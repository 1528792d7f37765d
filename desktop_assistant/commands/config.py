"""``desktop-assistant config show|check``."""

from __future__ import annotations

import argparse
import json
import sys

import tomli_w

from desktop_assistant.exit_codes import ExitCode
from settings import ConfigError, load_config
from settings.shown import masked


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("config", help="show or check the configuration")
    parser.add_argument("action", choices=["show", "check"])
    parser.add_argument("--json", action="store_true", help="show as JSON instead of TOML")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        config, folder = load_config(args.config)
    except ConfigError as exc:
        print(f"config error:\n{exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.action == "check":
        from hearing.stt.backends import backend_problems
        from hearing.wake import wake_problems
        from services.tts.kokoro.blends import voice_problems
        from settings.checks import extra_checks
        from settings.llm_url import llm_problems
        from settings.startup import startup_problems

        # what each service checks before it starts, so that a config passing here starts
        rules = startup_problems(config) + voice_problems(config) + llm_problems(config)
        rules += backend_problems(config.whisper) + wake_problems(config.wake)
        problems = extra_checks(folder) + [f"{folder / 'config.toml'}: {p}" for p in rules]
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            return ExitCode.USAGE
        print(f"{folder}: ok")
        return ExitCode.OK
    data = masked(config)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(f"# effective configuration from {folder}")
        print(tomli_w.dumps(data), end="")
    return ExitCode.OK
