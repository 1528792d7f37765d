"""``python -m services.dialogue``: the streaming LLM tool loop."""

from __future__ import annotations

import argparse
import logging
import sys

from bus.client import Bus
from services.dialogue.service import DialogueService
from services.runner import run_service, service_parser
from settings import Config, config_dir
from settings.state import state_dir


async def main(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request is noise
    config_file = config_dir(args.config) / "config.toml"
    await DialogueService(bus, config, config_file=config_file, state=state_dir()).run()


if __name__ == "__main__":
    parser = service_parser("dialogue", "Answer transcripts and asks with the LLM and the tools.")
    sys.exit(run_service("dialogue", parser.parse_args(), main))
