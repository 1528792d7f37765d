"""One MCP server: how to reach it, and its tools as catalog entries.

A stdio server is started through the tools' sandbox (``sandbox_exec.py``: its own
process group, dies with the executor, rlimits on memory, file size, processes and
CPU), with a small safe environment plus its own ``env``, its stderr in a log file
that the file-size limit caps. A ``url`` server is reached over streamable HTTP. Both
through the official ``mcp`` SDK's client.

Its tools join the catalog as ``NAME__tool`` (two servers never clash); one whose
name, description or schema cannot be offered is left out, with the reason kept for
the log and ``doctor``. MCP's annotations decide whether a tool needs the user's yes:
only ``readOnlyHint: true`` without ``destructiveHint: true`` is read-only, unless
``trust_read_only`` names it.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from bus.messages import ToolSpec
from services.tools.process import WRAPPER
from settings.schema import MAX_CPU_SECONDS, McpConfig, ToolsConfig
from settings.toolrules import TOOL_NAME

SEPARATOR = "__"
MAX_DESCRIPTION = 1000
"""Characters of a tool's description the model is offered."""
MAX_SCHEMA_BYTES = 16_384
"""A larger input schema is left out: it would cost every request its length."""


@dataclass(frozen=True)
class McpTool:
    spec: ToolSpec
    server: str
    name: str
    """The tool's own name on its server."""


def catalog_name(server: str, tool: str) -> str:
    return f"{server}{SEPARATOR}{tool}"


def offered(server: str, config: McpConfig, tools: list[mcp_types.Tool]
            ) -> tuple[dict[str, McpTool], list[str]]:
    """The server's tools as catalog entries, and why each left-out one is left out."""
    kept: dict[str, McpTool] = {}
    problems: list[str] = []
    for tool in tools:
        name = catalog_name(server, tool.name)
        problem = _problem(name, tool)
        if problem is None:
            try:
                spec = ToolSpec(
                    name=name,
                    description=(tool.description or tool.title or tool.name)[:MAX_DESCRIPTION],
                    parameters=tool.input_schema,
                    timeout=config.timeout,
                    modifies=_modifies(tool, config),
                )
            except ValueError as exc:
                problem = str(exc)
            else:
                kept[name] = McpTool(spec, server, tool.name)
                continue
        problems.append(f"mcp {server}: tool {tool.name!r} left out: {problem}")
    return kept, problems


def _problem(name: str, tool: mcp_types.Tool) -> str | None:
    if not TOOL_NAME.fullmatch(name):
        return f"{name!r} is not a name the model APIs accept (letters, digits, _ and -, at " \
               "most 64 with the prefix)"
    schema = tool.input_schema
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "its input schema is not a JSON object schema"
    size = len(json.dumps(schema, ensure_ascii=False).encode())
    if size > MAX_SCHEMA_BYTES:
        return f"its input schema is {size:,} bytes, more than {MAX_SCHEMA_BYTES:,}"
    return None


def _modifies(tool: mcp_types.Tool, config: McpConfig) -> bool:
    if tool.name in config.trust_read_only:
        return False
    hints = tool.annotations
    read_only = hints is not None and hints.read_only_hint is True
    return not read_only or (hints is not None and hints.destructive_hint is True)


def result_text(result: Any) -> tuple[str, bool]:
    """What the model receives of a ``tools/call`` result, and whether it succeeded."""
    parts = []
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')}]")
    text = "\n".join(parts).strip()
    if not text and getattr(result, "structured_content", None) is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    if getattr(result, "is_error", False):
        return f"error: {text or 'the tool failed'}", False
    return text, True


def stdio_parameters(config: McpConfig, limits: ToolsConfig, env: dict[str, str],
                     cwd: Path) -> StdioServerParameters:
    """The server's argv inside the sandbox; ValueError when its program is not found."""
    program = shutil.which(config.command[0], path=env.get("PATH"))
    if program is None:
        raise ValueError(f"cannot start {config.command[0]!r}: no such program on PATH")
    wrapped = [WRAPPER, str(MAX_CPU_SECONDS), str(config.memory_mb),
               str(limits.file_size_mb), str(limits.processes), "--",
               program, *config.command[1:]]
    return StdioServerParameters(command=sys.executable, args=["-I", "-S", *wrapped],
                                 env=env, cwd=str(cwd))


@asynccontextmanager
async def open_session(config: McpConfig, limits: ToolsConfig, env: dict[str, str],
                       folder: Path, stderr_log: Path) -> AsyncIterator[ClientSession]:
    """An initialized session with the server (started, for a stdio one)."""
    async with AsyncExitStack() as stack:
        if config.command:
            stderr_log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            errlog = stack.enter_context(stderr_log.open("w"))
            params = stdio_parameters(config, limits, env, folder)
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        else:
            read, write = await stack.enter_async_context(streamable_http_client(config.url))
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=config.timeout)
        )
        await session.initialize()
        yield session
