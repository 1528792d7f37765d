"""Tool folders for the tests: write tool files and helper programs, build a Runner."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from services.tools.runner import Runner
from settings.schema import ToolsConfig
from settings.toolfiles import load_tools

PYTHON = sys.executable


def toml_list(items: list[str]) -> str:
    """A TOML array of basic strings (escaped as JSON, which TOML accepts for these)."""
    import json

    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def write_tool(
    config: Path,
    name: str,
    command: list[str],
    *,
    params: dict[str, str] | None = None,
    extra: str = "",
) -> Path:
    """``tools/NAME.toml`` with ``command``; ``params`` maps a name to its type."""
    lines = [f'description = "test tool {name}"', f"command = {toml_list(command)}", extra]
    for param, kind in (params or {}).items():
        lines += [f"[params.{param}]", f'type = "{kind}"', f'description = "the {param}"']
    path = config / "tools" / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def write_program(config: Path, name: str, body: str, mode: int = 0o755) -> Path:
    """An executable script in ``tools/``."""
    path = config / "tools" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(mode)
    return path


ARGV_PRINTER = f"#!{PYTHON}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n"


def make_runner(config: Path, env: dict[str, str] | None = None, **limits: Any) -> Runner:
    return Runner(load_tools(config), config / "tools", env or {}, ToolsConfig(**limits))


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in (b"Z", b"X")


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def read_pid(path: Path, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text.isdigit():
            return int(text)
        time.sleep(0.02)
    raise AssertionError(f"{path} never got a pid")


def kill_if_alive(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
