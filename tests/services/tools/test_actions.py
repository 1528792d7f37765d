"""A tool that modifies runs only with the user's words of yes, and each run is logged."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from services.tools.consent import NEEDS_YES
from services.tools.runner import Runner
from settings import actions as actions_module
from settings.actions import Action, ActionLog
from settings.schema import ToolsConfig
from settings.toolfiles import load_tools
from tests.services.tools.helpers import PYTHON, write_program, write_tool

APPEND = (f"#!{PYTHON}\nimport sys\n"
          "open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')\nprint('added')\n")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_program(tmp_path, "append.py", APPEND)
    write_tool(tmp_path, "add_line", ["append.py", "{path}", "{line}"],
               params={"path": "string", "line": "string"},
               extra='modifies = true\nconfirm.en = "Add {line}?"')
    write_tool(tmp_path, "peek", ["append.py", "{path}", "read-only tools are not asked"],
               params={"path": "string"})
    return tmp_path


def runner(folder: Path, log: ActionLog) -> Runner:
    return Runner(load_tools(folder), folder / "tools", {}, ToolsConfig(), log)


def test_without_a_yes_it_does_not_run(folder: Path, tmp_path: Path) -> None:
    target, log = tmp_path / "calendar.txt", ActionLog(tmp_path / "state" / "actions.jsonl")
    arguments = json.dumps({"path": str(target), "line": "Dentist"})
    outcome = asyncio.run(runner(folder, log).run("add_line", arguments, confirmed_by=" "))
    assert (outcome.ok, outcome.content) == (False, f"error: {NEEDS_YES}")
    assert not target.exists()
    assert log.last(5) == []


def test_with_the_users_yes_it_runs_and_is_logged(folder: Path, tmp_path: Path) -> None:
    target, log = tmp_path / "calendar.txt", ActionLog(tmp_path / "state" / "actions.jsonl")
    arguments = json.dumps({"path": str(target), "line": "Dentist"})
    outcome = asyncio.run(
        runner(folder, log).run("add_line", arguments, confirmed_by="Yes, please.", session="s")
    )
    assert (outcome.ok, outcome.content) == (True, "added")
    assert target.read_text() == "Dentist\n"
    (action,) = log.last(5)
    assert (action.tool, action.arguments, action.confirmed_by, action.ok, action.result,
            action.session) == ("add_line", {"path": str(target), "line": "Dentist"},
                                "Yes, please.", True, "added", "s")
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600


def test_a_read_only_tool_runs_unasked_and_unlogged(folder: Path, tmp_path: Path) -> None:
    target, log = tmp_path / "seen.txt", ActionLog(tmp_path / "state" / "actions.jsonl")
    outcome = asyncio.run(runner(folder, log).run("peek", json.dumps({"path": str(target)})))
    assert outcome.ok and target.exists()
    assert log.last(5) == []


def test_the_log_skips_what_it_cannot_read_and_never_grows_without_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = ActionLog(tmp_path / "actions.jsonl")
    log.record(Action("one", {}, "yes", True, "ok"))
    with log.path.open("a") as out:
        out.write('{"half a line\n[1, 2]\n{"tool": 3}\n')
    log.record(Action("two", {"a": 1}, "sì", False, "error: x" * 100))
    assert [(a.tool, len(a.result)) for a in log.last(10)] == [("one", 2), ("two", 300)]
    monkeypatch.setattr(actions_module, "MAX_BYTES", 2000)
    for n in range(40):
        log.record(Action(f"t{n}", {}, "yes", True, "ok"))
    assert log.path.stat().st_size <= 2000
    assert log.last(1)[0].tool == "t39"
