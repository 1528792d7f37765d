"""Every subcommand takes ``--config DIR`` anywhere, also between its positional arguments.

The folder holds a config with an unknown key: a command that read ``--config`` stops on
that folder's "config error" (exit 2), one that did not parse it stops on argparse's usage.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop_assistant.cli import COMMANDS
from tests.helpers.processes import ROOT, python_env

DIR = "{dir}"

REFUSING_THE_CONFIG = [
    ["ask", "what", DIR, "time", "is", "it"],
    ["say", "Hello", DIR],
    ["listen", DIR],
    ["ready", "--timeout", "1", DIR, "--stay"],
    ["volume", "set", DIR, "0.8"],
    ["history", DIR, "clear", "--session", "cli"],
    ["config", "check", DIR],
    ["tap", "tts", DIR, "stt"],
    ["tools", "run", DIR, "now"],
    ["tools", "run", "now", DIR, "zone=UTC"],
    ["tools", "list", DIR],
    ["tools", "check", DIR],
    ["keys", "add", DIR, "laptop"],
    ["remind", "17:00", DIR, "call", "the", "dentist"],
]


def run(argv: list[str], folder: Path, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    words = [word for arg in argv for word in (["--config", str(folder)] if arg == DIR else [arg])]
    return subprocess.run(
        [sys.executable, "-m", "desktop_assistant", *words],
        cwd=ROOT, env=python_env(env), capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    (tmp_path / "config.toml").write_text("no_such_key = 1\n")
    return tmp_path


@pytest.mark.parametrize("argv", REFUSING_THE_CONFIG, ids=" ".join)
def test_config_after_positionals_is_read(argv: list[str], broken: Path) -> None:
    done = run(argv, broken)
    assert (done.returncode, done.stderr.splitlines()[:2]) == (
        2, ["config error:", f"{broken / 'config.toml'}: top level, unknown key 'no_such_key'"]
    ), done.stderr


def test_doctor_and_systemd_read_it_too(broken: Path) -> None:
    doctor = run(["doctor", DIR, "--json"], broken)
    assert doctor.returncode == 1 and "unknown key 'no_such_key'" in doctor.stdout
    units = run(["systemd", "print", DIR], broken)
    assert units.returncode == 0 and f"--config {broken}" in units.stdout


def test_models_takes_it_anywhere_and_needs_no_config(broken: Path) -> None:
    """The models and where they go do not depend on the config folder."""
    listed = run(["models", DIR, "list"], broken)
    assert listed.returncode == 0 and "kokoro-voices  (" in listed.stdout, listed.stderr


def test_every_subcommand_is_covered() -> None:
    covered = {argv[0] for argv in REFUSING_THE_CONFIG} | {"doctor", "systemd", "models",
                                                           "actions"}
    assert covered == set(COMMANDS)


def test_the_question_keeps_its_word_order() -> None:
    """Options pulled out from among the words leave the words in order (checked by parsing)."""
    from desktop_assistant.cli import build_parser

    args = build_parser().parse_args(["ask", "what", "--config", "D", "time", "--json", "is"])
    assert (args.text, args.config, args.json) == (["what", "time", "is"], "D", True)


def test_actions_takes_it_anywhere_and_needs_no_config(broken: Path) -> None:
    """The log of actions is in the state folder, whatever the config folder."""
    state = broken / "state"
    listed = run(["actions", DIR, "--last", "3"], broken, {"XDG_STATE_HOME": str(state)})
    assert (listed.returncode, listed.stdout) == (
        0, f"no actions yet ({state / 'desktop-assistant' / 'actions.jsonl'})\n"
    ), listed.stderr
