"""The log of actions: every run of a tool that modifies, with the words that allowed it.

One JSON object per line in ``$XDG_STATE_HOME/desktop-assistant/actions.jsonl``
(mode 0600, the user's own): when, the session, the tool, its arguments, the
user's words that confirmed it, whether it succeeded and the start of its result.
The tools service writes it as each modifying call ends (whoever asked for the
call: the dialogue, ``desktop-assistant tools run``), and ``desktop-assistant
actions`` reads the last ones. A line that cannot be read (a crash mid-write, an
edit by hand) is skipped, never the whole log. Past :data:`MAX_BYTES` the oldest
half is dropped, so it never grows without end.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from settings.state import state_dir, write_atomic

MAX_BYTES = 1 << 20
"""1 MiB, some thousands of actions: then the older half goes."""
MAX_RESULT = 300
"""Characters of a result kept: enough to tell what happened."""


@dataclass(frozen=True)
class Action:
    tool: str
    arguments: dict[str, Any]
    confirmed_by: str
    ok: bool
    result: str
    session: str = ""
    when: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))


def actions_path(environ: Mapping[str, str] | None = None) -> Path:
    return state_dir(environ) / "actions.jsonl"


class ActionLog:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or actions_path()

    def record(self, action: Action) -> None:
        """Append ``action``; OSError when the state folder cannot be written."""
        entry = asdict(action) | {"result": action.result[:MAX_RESULT]}
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(line)
        if self.path.stat().st_size > MAX_BYTES:
            self._halve()

    def last(self, count: int) -> list[Action]:
        """The ``count`` most recent actions, oldest first; none when there is no log."""
        try:
            lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            return []
        found: list[Action] = []
        for line in reversed(lines):
            action = _parse(line)
            if action is not None:
                found.append(action)
                if len(found) >= count:
                    break
        return found[::-1]

    def _halve(self) -> None:
        lines = self.path.read_bytes().splitlines(keepends=True)
        write_atomic(self.path, b"".join(lines[len(lines) // 2:]))


def _parse(line: str) -> Action | None:
    try:
        raw = json.loads(line)
        action = Action(**raw)
    except (ValueError, TypeError):
        return None
    if not isinstance(action.arguments, dict) or not isinstance(action.tool, str):
        return None
    return action
