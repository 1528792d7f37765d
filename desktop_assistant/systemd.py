"""systemd user units for every process of the Procfile, and the target that groups them.

The Procfile is the one list of processes: honcho reads it for development,
and the units are generated from it, so both start the same things.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

TARGET = "desktop-assistant.target"
PREFIX = "desktop-assistant-"
PROCFILE_PYTHON = ".venv/bin/python"
"""The Procfile's Python, relative to the repository; a unit names the Python it is given."""


@dataclass(frozen=True)
class ProcessLine:
    name: str
    argv: list[str]
    env: dict[str, str]
    """The line's leading ``NAME=VALUE`` words: the shell honcho runs it with sets them."""


def read_procfile(path: Path) -> list[ProcessLine]:
    processes = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, _, command = line.partition(":")
        words = shlex.split(command)
        env: dict[str, str] = {}
        while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
            key, _, value = words.pop(0).partition("=")
            env[key] = value
        processes.append(ProcessLine(name.strip(), words, env))
    return processes


def unit_name(process: str) -> str:
    return f"{PREFIX}{process}.service"


def service_unit(process: ProcessLine, root: str, python: str, config: str | None) -> str:
    argv = [python if arg == PROCFILE_PYTHON else arg for arg in process.argv]
    if config:
        argv += ["--config", config]
    after = "" if process.name == "broker" else f"After={unit_name('broker')}\n"
    env = "".join(f"Environment={key}={value}\n" for key, value in process.env.items())
    return (
        "[Unit]\n"
        f"Description=desktop-assistant {process.name}\n"
        f"PartOf={TARGET}\n"
        f"{after}"
        "StartLimitIntervalSec=60\n"
        "StartLimitBurst=10\n"
        "\n"
        "[Service]\n"
        "Type=exec\n"
        f"WorkingDirectory={root}\n"
        f"ExecStart={' '.join(shlex.quote(a) for a in argv)}\n"
        "Environment=PYTHONUNBUFFERED=1\n"
        f"{env}"
        "Restart=on-failure\n"
        "RestartSec=3\n"
        "# Exit status 2 is a config error: restarting cannot fix it.\n"
        "RestartPreventExitStatus=2\n"
        "TimeoutStopSec=5\n"
        "StandardOutput=journal\n"
        "StandardError=journal\n"
        "# Each line's <N> prefix is its priority (bus/logs.py): journalctl -p warning filters.\n"
        f"SyslogIdentifier={PREFIX}{process.name}\n"
        "\n"
        "[Install]\n"
        f"WantedBy={TARGET}\n"
    )


def target_unit(processes: list[ProcessLine]) -> str:
    wants = " ".join(unit_name(p.name) for p in processes)
    return (
        "[Unit]\n"
        "Description=desktop-assistant: every process of the voice assistant\n"
        f"Wants={wants}\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def render_units(
    procfile: Path, root: str, python: str, config: str | None = None
) -> dict[str, str]:
    """File name → content for every unit."""
    processes = read_procfile(procfile)
    units = {unit_name(p.name): service_unit(p, root, python, config) for p in processes}
    units[TARGET] = target_unit(processes)
    return units
