"""The tools service on the bus: the catalog, and each call answered once per call id."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from bus.client import Bus
from bus.messages import ToolCatalog, ToolCatalogRequest, ToolRequest, ToolResult, ToolSpec
from bus.ratelimit import RateLimitedLog
from services.base.runner import ServiceMain, StartupError
from services.base.service import Service
from services.tools.callers import CallerSlots, TooManyCalls
from services.tools.runner import Outcome, Runner
from settings import Config, ConfigError, config_dir
from settings.actions import ActionLog
from settings.state import state_dir
from settings.toolfiles import Tool, load_tools

if TYPE_CHECKING:
    from services.tools.mcp_servers import McpServers

log = logging.getLogger(__name__)

CallKey = tuple[str | None, str, str, str, str]


class AnswerCache:
    """The outcome of recent calls by (turn, call id, name, arguments), least recent dropped.

    An entry is stored when the call starts, so a repeat that arrives while
    the first run is still going waits for that run instead of starting another.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[CallKey, asyncio.Future[Outcome]] = OrderedDict()

    def get(self, key: CallKey) -> asyncio.Future[Outcome] | None:
        future = self._entries.get(key)
        if future is not None:
            self._entries.move_to_end(key)
        return future

    def put(self, key: CallKey, future: asyncio.Future[Outcome]) -> None:
        self._entries[key] = future
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)


def start(config: Config, args: argparse.Namespace) -> ServiceMain:
    """Load the tool files before the bus is reached: a bad one stops the start, like a bad
    config.toml, so that no tool is dropped quietly."""
    folder = config_dir(args.config)
    try:
        tools = load_tools(folder)
    except ConfigError as exc:
        raise StartupError(f"tool file error:\n{exc}") from None
    return serve_with(tools, folder / "tools")


def serve_with(tools: dict[str, Tool], tools_dir: Path) -> ServiceMain:
    """The tools service over ``tools``."""

    async def serve(bus: Bus, config: Config, _: argparse.Namespace) -> None:
        actions = ActionLog()
        runner = Runner(tools, tools_dir, config.env, config.tools, actions)
        catalog = [ToolSpec(**tool.catalog_entry()) for tool in tools.values()]
        service = ToolService(
            bus,
            runner,
            catalog,
            interval=config.tools.catalog_interval,
            concurrency=config.tools.concurrency,
            queue_per_caller=config.tools.queue_per_caller,
            mcp=mcp_servers(config, runner, actions),
        )
        await service.run()

    return serve


def mcp_servers(config: Config, runner: Runner, actions: ActionLog) -> McpServers | None:
    """The enabled ``[mcp.*]`` servers; None (and the SDK never imported) without any."""
    if not any(server.enabled for server in config.mcp.values()):
        return None
    from services.tools.mcp_servers import McpServers

    home = state_dir() / "mcp"  # the stdio servers' working folder and stderr logs
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return McpServers(config.mcp, config.tools, config.env, home, home, runner.redact, actions)


class ToolService(Service):
    """Publishes the catalog (start-up, every ``interval`` s, on request) and answers calls."""

    def __init__(
        self,
        bus: Bus,
        runner: Runner,
        catalog: list[ToolSpec],
        *,
        interval: float = 5.0,
        concurrency: int = 8,
        queue_per_caller: int = 32,
        cache_size: int = 256,
        mcp: McpServers | None = None,
    ) -> None:
        super().__init__(bus)
        self.runner = runner
        self.catalog = catalog
        self.mcp = mcp
        if mcp is not None:
            mcp.changed = self._mcp_changed
        self.interval = interval
        self.slots = CallerSlots(concurrency, queue_per_caller)
        self.answers = AnswerCache(cache_size)
        self.refusals = RateLimitedLog(log)

    STOP_WAIT = 5.0
    """Running tools are killed with their process groups when the service stops."""

    async def on_start(self) -> None:
        self.publish_catalog()
        self.tasks.spawn(self._republish())
        if self.mcp is not None and self.mcp.links:
            self.tasks.spawn(self.mcp.keep())

    def report_ready(self) -> None:
        self._report()  # ready, or degraded while an MCP server is down

    def publish_catalog(self, request: ToolCatalogRequest | None = None) -> None:
        reply_to = None if request is None else request.id
        tools = self.catalog + (self.mcp.specs() if self.mcp is not None else [])
        self.bus.publish(ToolCatalog(tools=tools, reply_to=reply_to))

    def _mcp_changed(self) -> None:
        """A server came up or went down: its tools join or leave the catalog at once."""
        self.publish_catalog()
        self._report()

    def _report(self) -> None:
        detail = f"{len(self.catalog)} tools"
        if self.mcp is None or not self.mcp.links:
            self.bus.set_state("ready", detail)
            return
        all_up, servers = self.mcp.status()
        self.bus.set_state("ready" if all_up else "degraded", f"{detail}; {servers}")

    async def _republish(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.publish_catalog()

    def handle_call(self, call: ToolRequest) -> None:
        key: CallKey = (call.turn, call.id, call.name, call.arguments, call.confirmed_by)
        outcome = self.answers.get(key)
        if outcome is None:
            try:
                self.slots.admit(call.src)
            except TooManyCalls as exc:
                self._refuse(call, str(exc))
                return
            outcome = self.tasks.spawn(self._execute(call))
            self.answers.put(key, outcome)
        else:
            log.info("call %s of %s repeated: its first result answers", call.id, call.name)
        self.tasks.spawn(self._answer(call, outcome))

    async def _execute(self, call: ToolRequest) -> Outcome:
        async with self.slots.slot(call.src):
            try:
                if self.mcp is not None and self.mcp.handles(call.name):
                    return await self.mcp.run(
                        call.name, call.arguments, call.confirmed_by, call.session
                    )
                return await self.runner.run(
                    call.name, call.arguments, call.confirmed_by, call.session
                )
            except Exception as exc:  # a bug of ours must not leave the caller waiting
                log.exception("call %s of %s failed inside the service", call.id, call.name)
                return Outcome(f"error: internal error of the tools service: {exc}", False, 0.0)

    def _refuse(self, call: ToolRequest, reason: str) -> None:
        self.refusals.warn(call.src, "call %s of %s refused: %s", call.id, call.name, reason)
        self._publish(call, Outcome(f"error: {reason}", False, 0.0))

    async def _answer(self, call: ToolRequest, outcome: asyncio.Future[Outcome]) -> None:
        self._publish(call, await asyncio.shield(outcome))

    def _publish(self, call: ToolRequest, done: Outcome) -> None:
        self.bus.publish(
            ToolResult(
                reply_to=call.id,
                name=call.name,
                content=done.content,
                ok=done.ok,
                duration=done.duration,
                turn=call.turn,
                site=call.site,
            )
        )

    HANDLERS = {ToolRequest: handle_call, ToolCatalogRequest: publish_catalog}
