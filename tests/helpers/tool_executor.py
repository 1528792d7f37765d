"""A scripted stand-in for the tool executor: the bus side of it only.

It publishes a catalog (at start and on ``ToolCatalogRequest``) and answers each
``ToolRequest`` with a scripted ``ToolResult``, recording the calls. A tool whose
result is ``None`` is never answered (an executor that hangs or died).
``python -m tests.helpers.tool_executor --catalog JSON`` runs it as a process
named ``tools`` (heartbeats included); a catalog entry's ``result`` key is its
scripted answer there.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from bus.client import Bus
from bus.messages import ToolCatalog, ToolCatalogRequest, ToolRequest, ToolResult, ToolSpec
from services.base.names import TOOLS
from services.base.runner import nothing_to_check, run_service, service_parser
from services.base.service import Service
from settings import Config

Result = str | Callable[[dict[str, Any]], str] | None


def tool(
    name: str,
    description: str = "",
    params: dict[str, str] | None = None,
    announce: dict[str, list[str]] | None = None,
    timeout: float = 10.0,
    modifies: bool = False,
    confirm: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A catalog entry as the executor publishes it; ``params`` maps name to JSON type."""
    properties = {p: {"type": t, "description": p} for p, t in (params or {}).items()}
    return {
        "name": name,
        "description": description or f"The {name} tool.",
        "parameters": {"type": "object", "properties": properties},
        "announce": announce or {},
        "timeout": timeout,
        "modifies": modifies,
        "confirm": confirm or {},
    }


class ScriptedExecutor(Service):
    def __init__(
        self,
        bus: Bus,
        tools: list[dict[str, Any]],
        results: dict[str, Result],
        barrier: int = 1,
    ) -> None:
        super().__init__(bus)
        self.tools = tools
        self.results = results
        self.barrier = barrier
        """Hold answers until this many calls wait: proves that calls run concurrently."""
        self.calls: list[ToolRequest] = []
        self._held: list[ToolRequest] = []

    async def start(self) -> None:
        """Subscribe and prove it, then publish the catalog once."""
        self.subscribe(self.bus)
        await self.bus.wait_connected()
        self.bus.publish(ToolCatalog(tools=self.catalog()))

    def _catalog_request(self, msg: ToolCatalogRequest) -> None:
        self.bus.publish(ToolCatalog(tools=self.catalog(), reply_to=msg.id))

    def catalog(self) -> list[ToolSpec]:
        return [ToolSpec(**entry) for entry in self.tools]

    def _call(self, msg: ToolRequest) -> None:
        self.calls.append(msg)
        self._held.append(msg)
        if len(self._held) >= self.barrier:
            for call in self._held:
                self._answer(call)
            self._held.clear()

    def _answer(self, call: ToolRequest) -> None:
        result = self.results.get(call.name, f"{call.name}: done")
        if result is None:
            return
        if callable(result):
            result = result(json.loads(call.arguments))
        self.bus.publish(
            ToolResult(
                reply_to=call.id,
                name=call.name,
                content=result,
                ok=not result.startswith("error:"),
                turn=call.turn,
            )
        )


    HANDLERS = {ToolCatalogRequest: _catalog_request, ToolRequest: _call}

async def _main(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    catalog = json.loads(args.catalog)
    results: dict[str, Result] = {
        t["name"]: t.pop("result", None) for t in catalog if "result" in t
    }
    executor = ScriptedExecutor(bus, catalog, results)
    await executor.start()
    bus.set_state("ready")
    await executor.serve()


if __name__ == "__main__":
    parser = service_parser(TOOLS, "A scripted tool executor for tests.")
    parser.add_argument("--catalog", default="[]", help="JSON list of catalog entries")
    sys.exit(run_service(TOOLS, parser.parse_args(), nothing_to_check(_main)))
