"""``python -m services.tools``: the tool executor service."""

from __future__ import annotations

import sys

from bus.process import load_or_exit
from services.names import TOOLS
from services.runner import run_service, service_parser
from services.tools.service import serve_with
from settings import ConfigError, config_dir
from settings.toolfiles import load_tools


def main(argv: list[str] | None = None) -> int:
    parser = service_parser(TOOLS, "Run the tools of the config folder for the assistant.")
    args = parser.parse_args(argv)
    load_or_exit(args.config)
    folder = config_dir(args.config)
    try:  # a bad tool file stops the start, like a bad config.toml: no tool is dropped quietly
        tools = load_tools(folder)
    except ConfigError as exc:
        print(f"tool file error:\n{exc}", file=sys.stderr)
        return 2
    return run_service(TOOLS, args, serve_with(tools, folder / "tools"))


if __name__ == "__main__":
    sys.exit(main())
