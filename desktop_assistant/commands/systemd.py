"""``desktop-assistant systemd install``: write the user units for this checkout."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from desktop_assistant.exit_codes import ExitCode
from desktop_assistant.systemd import TARGET, render_units

ROOT = Path(__file__).resolve().parents[2]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("systemd", help="write systemd user units for this checkout")
    parser.add_argument("action", choices=["install", "print"])
    parser.add_argument(
        "--dir",
        type=Path,
        help="where to write the units (default: ~/.config/systemd/user)",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    config = str(Path(args.config).resolve()) if args.config else None
    units = render_units(ROOT / "Procfile", str(ROOT), sys.executable, config)
    if args.action == "print":
        for name, text in units.items():
            print(f"# {name}\n{text}")
        return ExitCode.OK
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    folder: Path = args.dir or Path(base) / "systemd" / "user"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in units.items():
        (folder / name).write_text(text)
        print(f"wrote {folder / name}")
    print(f"now: systemctl --user daemon-reload && systemctl --user enable --now {TARGET}")
    return ExitCode.OK
