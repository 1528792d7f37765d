"""``python -m services.tools``: the tool executor service."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bus.client import Bus
from bus.process import load_or_exit
from services.runner import run_service, service_parser
from services.tools.runner import Runner
from services.tools.service import ToolService
from settings import Config, ConfigError, config_dir
from settings.toolfiles import Tool, load_tools


def main(argv: list[str] | None = None) -> int:
    parser = service_parser("tools", "Run the tools of the config folder for the assistant.")
    args = parser.parse_args(argv)
    load_or_exit(args.config)
    folder = config_dir(args.config)
    try:  # a bad tool file stops the start, like a bad config.toml: no tool is dropped quietly
        tools = load_tools(folder)
    except ConfigError as exc:
        print(f"tool file error:\n{exc}", file=sys.stderr)
        return 2

    async def serve(bus: Bus, config: Config, _: argparse.Namespace) -> None:
        await serve_tools(bus, config, tools, folder / "tools")

    return run_service("tools", args, serve)


async def serve_tools(bus: Bus, config: Config, tools: dict[str, Tool], tools_dir: Path) -> None:
    runner = Runner(tools, tools_dir, config.env, config.tools)
    service = ToolService(
        bus,
        runner,
        [tool.catalog_entry() for tool in tools.values()],
        interval=config.tools.catalog_interval,
        concurrency=config.tools.concurrency,
    )
    await service.run()


if __name__ == "__main__":
    sys.exit(main())
