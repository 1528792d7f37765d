"""The log level of every process: from its flag, the environment or the config."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from settings import Config
from settings.schema import LOG_LEVELS

LEVEL_ENV = "DESKTOP_ASSISTANT_LOG_LEVEL"
"""The level when no ``--log-level`` is given; before ``[log] level`` of the config."""


def level_word(value: str) -> str:
    """``--log-level``'s type: a known level in any case, else argparse's clear error."""
    level = value.strip().upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(
            f"invalid level {value!r} (choose from {', '.join(LOG_LEVELS)})"
        )
    return level


def chosen_level(flag: str | None, config: Config | None) -> str:
    """The flag, then the environment, then the config, then INFO."""
    if flag:
        return flag
    from_env = os.environ.get(LEVEL_ENV, "")
    if from_env.strip():
        try:
            return level_word(from_env)
        except argparse.ArgumentTypeError as exc:
            print(f"{LEVEL_ENV}: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    return config.log.level if config is not None else "INFO"


def setup_logging(flag: str | None, config: Config | None = None) -> None:
    logging.basicConfig(
        level=chosen_level(flag, config),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
