"""``tools list`` and ``tools run`` for the tools of the ``[mcp.*]`` servers.

The command line connects to each server itself (starting a stdio one in the same
sandbox as the tools service does), with the server's ``timeout``: what it lists and
runs is what the assistant would be offered and would run, the yes included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from desktop_assistant.commands.tools import ask_yes, typed
from desktop_assistant.exit_codes import ExitCode
from services.tools.consent import run_with_consent
from services.tools.mcp_link import SEPARATOR, McpTool, offered, open_session, result_text
from services.tools.mcp_servers import describe, list_tools, server_env
from settings import Config
from settings.actions import ActionLog
from settings.schema import McpConfig
from settings.secrets import Redactor
from settings.state import state_dir


async def _tools(name: str, config: Config, server: McpConfig) -> tuple[dict[str, McpTool],
                                                                        list[str]]:
    home = state_dir() / "mcp"
    with anyio.fail_after(server.timeout):
        async with open_session(server, config.tools, server_env(server, config.env), home,
                                home / f"{name}.cli.log") as session:
            return offered(name, server, await list_tools(session))


def print_mcp_tools(config: Config, folder: Path) -> None:
    for name, server in config.mcp.items():
        if not server.enabled:
            print(f"mcp {name}: disabled")
            continue
        try:
            kept, problems = asyncio.run(_tools(name, config, server))
        except Exception as exc:
            print(f"mcp {name}: cannot be reached: {describe(exc)}")
            continue
        for tool in kept.values():
            spec = tool.spec
            print(f"{spec.name}: {spec.description}")
            print(f"  from mcp {name} ({' '.join(server.command) or server.url})")
            for param, schema in (spec.parameters.get("properties") or {}).items():
                kind = schema.get("type", "any") if isinstance(schema, dict) else "any"
                print(f"  {param} ({kind})")
            if spec.modifies:
                print("  modifies: runs only after the user's yes")
        for problem in problems:
            print(problem)


def run_mcp_tool(config: Config, folder: Path, args: argparse.Namespace) -> int:
    server_name = args.name.partition(SEPARATOR)[0]
    server = config.mcp[server_name]
    return asyncio.run(_run(config, server_name, server, args))


async def _run(config: Config, name: str, server: McpConfig, args: argparse.Namespace) -> int:
    home = state_dir() / "mcp"
    redact = Redactor(config.env, config.tools.secret_env)
    try:
        with anyio.fail_after(server.timeout * 2):
            async with open_session(server, config.tools, server_env(server, config.env), home,
                                    home / f"{name}.cli.log") as session:
                kept, _ = offered(name, server, await list_tools(session))
                tool = kept.get(args.name)
                if tool is None:
                    print(f"tools run: {name} offers no {args.name} (it has: "
                          f"{', '.join(kept) or 'none'})", file=sys.stderr)
                    return ExitCode.USAGE
                arguments = _arguments(args.arguments, tool)
                confirmed_by = ""
                if tool.spec.modifies:
                    confirmed_by = "--yes" if args.yes else ask_yes(
                        tool.spec.name, tool.spec.description, arguments)
                    if not confirmed_by:
                        print(f"tools run: {args.name} not run: it modifies, and no yes came",
                              file=sys.stderr)
                        return ExitCode.FAILED

                async def call() -> tuple[str, bool]:
                    return result_text(await session.call_tool(tool.name, arguments))

                # The same rule and log of actions as the tools service's; a call that
                # raises is reported below, and is not written to the log.
                outcome = await run_with_consent(
                    args.name, json.dumps(arguments), tool.spec.modifies, confirmed_by, "cli",
                    call, redact, ActionLog())
    except ValueError as exc:
        print(f"tools run: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except Exception as exc:
        print(f"tools run: mcp {name}: {describe(exc)}", file=sys.stderr)
        return ExitCode.UNAVAILABLE
    print(outcome.content)
    return ExitCode.OK if outcome.ok else ExitCode.FAILED


def _arguments(pairs: list[str], tool: McpTool) -> dict[str, Any]:
    """``key=value`` words typed by the tool's JSON schema (string when it says nothing)."""
    properties = tool.spec.parameters.get("properties") or {}
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"{pair!r} is not KEY=VALUE")
        if key not in properties:
            raise ValueError(f"{tool.spec.name} has no parameter {key!r} (it has: "
                             f"{', '.join(properties) or 'none'})")
        kind = properties[key].get("type") if isinstance(properties[key], dict) else None
        arguments[key] = typed(value, kind if isinstance(kind, str) else "string", key)
    return arguments
