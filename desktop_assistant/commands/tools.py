"""``desktop-assistant tools list|run|check``: the tools of the config folder."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from desktop_assistant.exit_codes import ExitCode
from settings import ConfigError, load_config
from settings.actions import ActionLog
from settings.toolfiles import Tool, check_tool_files, load_tools


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "tools",
        help="list, run or check the tools of the config folder",
        description="list: each tool with its parameters; run NAME KEY=VALUE...: run one "
        "tool as the assistant would and print what the model receives (a tool that "
        "modifies asks first, on the terminal, or runs with --yes); check: validate "
        "the tool files (exit 0 when all are valid).",
    )
    parser.add_argument("--yes", action="store_true",
                        help="say yes to a tool that modifies without asking (scripts)")
    parser.add_argument("action", choices=["list", "run", "check"])
    parser.add_argument("name", nargs="?", help="the tool to run")
    parser.add_argument("arguments", nargs="*", metavar="KEY=VALUE", help="the tool's arguments")
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    try:
        config, folder = load_config(args.config)
        if args.action == "check":
            return check(folder)
        tools = load_tools(folder)
    except ConfigError as exc:
        print(f"config error:\n{exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.action == "list":
        print_tools(tools, folder)
        if any(server.enabled for server in config.mcp.values()):
            from desktop_assistant.commands.mcp_tools import print_mcp_tools

            print_mcp_tools(config, folder)
        return ExitCode.OK
    if args.name is None:
        print(
            "tools run: which tool? (desktop-assistant tools run NAME KEY=VALUE...)",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    if args.name.partition("__")[0] in config.mcp and "__" in args.name:
        from desktop_assistant.commands.mcp_tools import run_mcp_tool

        return run_mcp_tool(config, folder, args)
    from services.tools.runner import Runner

    runner = Runner(tools, folder / "tools", config.env, config.tools, ActionLog())
    tool = tools.get(args.name)
    try:
        arguments = parse_pairs(args.arguments, tool)
    except ValueError as exc:
        print(f"tools run: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    confirmed_by = ""
    if tool is not None and tool.spec.modifies:
        confirmed_by = "--yes" if args.yes else ask_yes(tool.name, tool.spec.description,
                                                        arguments)
        if not confirmed_by:
            print(f"tools run: {tool.name} not run: it modifies, and no yes came",
                  file=sys.stderr)
            return ExitCode.FAILED
    outcome = asyncio.run(runner.run(args.name, json.dumps(arguments), confirmed_by, "cli"))
    print(outcome.content)
    return ExitCode.OK if outcome.ok else ExitCode.FAILED


def ask_yes(name: str, description: str, arguments: dict[str, Any]) -> str:
    """The user's yes on the terminal ("terminal: y"), or "" (no terminal, or not yes)."""
    if not sys.stdin.isatty():
        print(f"tools run: {name} modifies: confirm on a terminal or pass --yes",
              file=sys.stderr)
        return ""
    shown = json.dumps(arguments, ensure_ascii=False)
    try:
        answer = input(f"{name} changes something ({description}) with "
                       f"{shown}. Run it? [y/N] ")
    except EOFError:
        return ""
    return f"terminal: {answer.strip()}" if answer.strip().lower() in ("y", "yes") else ""


def check(folder: Path) -> int:
    problems = check_tool_files(folder)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return ExitCode.USAGE
    names = sorted(load_tools(folder))
    print(
        f"{folder / 'tools'}: {len(names)} tools ok" + (f" ({', '.join(names)})" if names else "")
    )
    return ExitCode.OK


def print_tools(tools: dict[str, Tool], folder: Path) -> None:
    if not tools:
        print(f"no tools in {folder / 'tools'}")
    for tool in tools.values():
        spec = tool.spec
        print(f"{tool.name}: {spec.description}")
        print(
            f"  command: {json.dumps(spec.command, ensure_ascii=False)}  timeout {spec.timeout:g} s"
        )
        for name, param in spec.params.items():
            print(f"  {name} ({param.type}): {param.description}")
        for lang, phrases in spec.announce.items():
            print(f"  announce.{lang}: {' | '.join(phrases)}")
        if spec.modifies:
            print("  modifies: runs only after the user's yes")
        for lang, question in spec.confirm.items():
            print(f"  confirm.{lang}: {question}")


def parse_pairs(pairs: list[str], tool: Tool | None) -> dict[str, Any]:
    """``key=value`` words as the model would send them: typed by the tool's parameters."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"{pair!r} is not KEY=VALUE")
        if tool is not None and key not in tool.spec.params:
            known = ", ".join(tool.spec.params) or "none"
            raise ValueError(f"{tool.name} has no parameter {key!r} (it has: {known})")
        kind = tool.spec.params[key].type if tool is not None else "string"
        arguments[key] = typed(value, kind, key)
    return arguments


def typed(value: str, kind: str, key: str) -> Any:
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        raise ValueError(f"{key}={value!r} is not a valid {kind}") from None
    if kind == "boolean":
        if value.lower() not in ("true", "false"):
            raise ValueError(f"{key}={value!r} is not true or false")
        return value.lower() == "true"
    return value
