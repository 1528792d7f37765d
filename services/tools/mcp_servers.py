"""The configured MCP servers, kept running; their tools called like our own.

Each enabled ``[mcp.NAME]`` has a :class:`Link` that connects (starting a stdio
server), lists its tools, then pings it. A server that dies or stops answering a
ping is reconnected with backoff (1 s, doubling to a minute; back to 1 s after a
minute up), and its tools leave the catalog while it is down. A call is bounded by
the server's ``timeout``; its result is masked and cut like a tool's output; a tool
that modifies needs the user's words of yes and is written to the log of actions
(``services.tools.consent``, as for ``desktop-assistant tools run``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from mcp import ClientSession

from bus.messages import ToolSpec
from services.tools.consent import Outcome, run_with_consent
from services.tools.mcp_link import SEPARATOR, McpTool, offered, open_session, result_text
from settings.actions import ActionLog
from settings.schema import McpConfig, ToolsConfig
from settings.secrets import Redactor

log = logging.getLogger(__name__)

FIRST_DELAY = 1.0
MAX_DELAY = 60.0
STABLE = 60.0
"""Seconds up after which the next failure starts the backoff again from the first delay."""
PING_EVERY = 5.0
MAX_PAGES = 20
"""Pages of ``tools/list`` read: a server that pages on forever is cut there."""


def describe(exc: BaseException) -> str:
    """The first real error inside an exception group (the SDK's task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "it stopped answering"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class Link:
    """One server: up (with a session and tools) or down (with the reason)."""

    def __init__(self, name: str, config: McpConfig, limits: ToolsConfig, env: dict[str, str],
                 folder: Path, logs: Path, changed: Callable[[], None]) -> None:
        self.name, self.config, self.limits, self.env = name, config, limits, env
        self.folder, self.stderr_log, self.changed = folder, logs / f"{name}.log", changed
        self.session: ClientSession | None = None
        self.tools: dict[str, McpTool] = {}
        self.state = "starting"
        self.left_out: list[str] = []

    @property
    def up(self) -> bool:
        return self.session is not None

    async def keep(self) -> None:
        delay = FIRST_DELAY
        while True:
            began = time.monotonic()
            reason = await self._serve_once()
            self.session, self.tools = None, {}
            if time.monotonic() - began > STABLE:
                delay = FIRST_DELAY
            self.state = f"down ({reason}), again in {delay:g} s"
            log.warning("mcp %s: %s", self.name, self.state)
            self.changed()
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_DELAY)

    async def _serve_once(self) -> str:
        try:
            async with open_session(self.config, self.limits, self.env, self.folder,
                                    self.stderr_log) as session:
                with anyio.fail_after(self.config.timeout):
                    listed = await list_tools(session)
                self.tools, self.left_out = offered(self.name, self.config, listed)
                for problem in self.left_out:
                    log.warning("%s", problem)
                self.session, self.state = session, f"up, {len(self.tools)} tools"
                log.info("mcp %s: %s", self.name, self.state)
                self.changed()
                while True:
                    await asyncio.sleep(PING_EVERY)
                    with anyio.fail_after(self.config.timeout):
                        await session.send_ping()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # whatever the server did, it is down: say why
            return describe(exc)

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        session = self.session
        if session is None:
            return f"error: the MCP server {self.name} is {self.state}", False
        try:
            with anyio.fail_after(self.config.timeout):
                result = await session.call_tool(tool, arguments)
        except TimeoutError:
            return f"error: {self.name} did not answer within {self.config.timeout:g} s", False
        except Exception as exc:
            return f"error: {self.name}: {describe(exc)}", False
        return result_text(result)


async def list_tools(session: ClientSession) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def server_env(config: McpConfig, env: Mapping[str, str]) -> dict[str, str]:
    """A stdio server's own ``env`` over the SDK's safe base; ``[env]``'s PATH, when it sets
    one, finds its program (the rest of ``[env]`` is the tools' secrets, not the server's)."""
    path = env.get("PATH") or os.environ.get("PATH", os.defpath)
    return {"PATH": path, **config.env}


class McpServers:
    def __init__(self, configs: Mapping[str, McpConfig], limits: ToolsConfig,
                 env: Mapping[str, str], folder: Path, logs: Path, redact: Redactor,
                 actions: ActionLog | None, changed: Callable[[], None] = lambda: None) -> None:
        self.changed = changed
        self.links = {
            name: Link(name, config, limits, server_env(config, env), folder, logs, self._changed)
            for name, config in configs.items() if config.enabled
        }
        self.redact, self.actions = redact, actions

    def _changed(self) -> None:
        self.changed()

    def specs(self) -> list[ToolSpec]:
        return [tool.spec for link in self.links.values() for tool in link.tools.values()]

    def handles(self, name: str) -> bool:
        return name.partition(SEPARATOR)[0] in self.links and SEPARATOR in name

    def status(self) -> tuple[bool, str]:
        """Whether every server is up, and a line that says how each is."""
        parts = [f"mcp {name}: {link.state}"
                 + (f", {len(link.left_out)} left out (see the log)" if link.left_out else "")
                 for name, link in self.links.items()]
        fine = all(link.up or link.state == "starting" for link in self.links.values())
        return fine, "; ".join(parts)

    async def keep(self) -> None:
        await asyncio.gather(*(link.keep() for link in self.links.values()))

    async def run(self, name: str, arguments: str, confirmed_by: str = "",
                  session: str = "") -> Outcome:
        link = self.links[name.partition(SEPARATOR)[0]]
        tool = link.tools.get(name)

        async def call() -> tuple[str, bool]:
            if tool is None:
                return f"error: {name} is not offered now ({link.state})", False
            try:
                values = json.loads(arguments or "{}")
            except ValueError:
                values = None
            if not isinstance(values, dict):
                return "error: the arguments are not a JSON object", False
            return await link.call(tool.name, values)

        modifies = tool is not None and tool.spec.modifies
        return await run_with_consent(name, arguments, modifies, confirmed_by, session, call,
                                      self.redact, self.actions, log)
