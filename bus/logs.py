"""Log lines that fit whoever reads a process's stderr: a terminal, honcho or journald.

journald and honcho stamp each line with their own time, so a time of ours
would be the second (honcho) or third (``journalctl`` shows its own and the
syslog one) on the line. Under journald each line also starts with its syslog
priority (``<4>``), which journald takes as the entry's priority, so that
``journalctl -p warning`` filters.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TextIO

from settings import Config
from settings.schema import LOG_LEVELS

LEVEL_ENV = "DESKTOP_ASSISTANT_LOG_LEVEL"
"""The level when no ``--log-level`` is given; before ``[log] level`` of the config."""
TIME_ENV = "DESKTOP_ASSISTANT_LOG_TIME"
"""``0``: no time of our own on each line (the Procfile sets it: honcho adds its own)."""
PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3}
"""syslog priorities: debug, info, warning, err (critical is crit, 2)."""


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


def under_journald(stream: TextIO) -> bool:
    """systemd sets ``JOURNAL_STREAM=dev:inode`` of the journal socket it connected; a
    child whose stderr was redirected elsewhere inherits the variable, hence the check."""
    device, _, inode = os.environ.get("JOURNAL_STREAM", "").partition(":")
    try:
        stat = os.fstat(stream.fileno())
        return (stat.st_dev, stat.st_ino) == (int(device), int(inode))
    except (ValueError, OSError):
        return False


class JournalFormatter(logging.Formatter):
    """Every line of a record (a traceback too) carries the record's priority."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{PRIORITY.get(record.levelno, 2 if record.levelno > logging.ERROR else 7)}>"
        return prefix + super().format(record).replace("\n", "\n" + prefix)


def setup_logging(flag: str | None, config: Config | None = None) -> None:
    stream = sys.stderr
    journald = under_journald(stream)
    timed = not journald and os.environ.get(TIME_ENV, "").strip() != "0"
    layout = ("%(asctime)s " if timed else "") + "%(name)s %(levelname)s %(message)s"
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter(layout) if journald else logging.Formatter(layout))
    logging.basicConfig(level=chosen_level(flag, config), handlers=[handler])
