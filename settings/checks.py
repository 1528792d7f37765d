"""Checks beyond ``config.toml`` that ``config check`` runs (tool files...).

Each service that owns files in the config folder adds its validator to
``CHECKS``; a validator returns a list of problems, each naming the file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from settings.toolfiles import check_tool_files

CHECKS: list[Callable[[Path], list[str]]] = [check_tool_files]


def extra_checks(folder: Path) -> list[str]:
    problems: list[str] = []
    for check in CHECKS:
        problems.extend(check(folder))
    return problems
