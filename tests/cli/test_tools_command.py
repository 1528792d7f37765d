"""``desktop-assistant tools list|run|check`` as a real command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.examples import EXAMPLES
from tests.helpers.processes import ROOT, python_env
from tests.services.tools.helpers import ARGV_PRINTER, write_program, write_tool
from tests.settings.test_config import cli


def folder_with_tools(root: Path) -> Path:
    write_program(root, "argv.py", ARGV_PRINTER)
    write_tool(
        root,
        "echo",
        ["argv.py", "{text}", "{count}", "{loud}"],
        params={"text": "string", "count": "integer", "loud": "boolean"},
        extra='announce.en = ["Echoing.", "Right back."]',
    )
    write_tool(root, "fails", ["sh", "-c", "echo no luck >&2; exit 5"])
    return root


def test_list_shows_each_tool_with_its_parameters(tmp_path: Path) -> None:
    listed = cli("tools", "list", "--config", str(folder_with_tools(tmp_path)))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "echo: test tool echo",
        '  command: ["argv.py", "{text}", "{count}", "{loud}"]  timeout 10 s',
        "  text (string): the text",
        "  count (integer): the count",
        "  loud (boolean): the loud",
        "  announce.en: Echoing. | Right back.",
        "fails: test tool fails",
        '  command: ["sh", "-c", "echo no luck >&2; exit 5"]  timeout 10 s',
    ]


def test_run_prints_what_the_model_receives(tmp_path: Path) -> None:
    folder = folder_with_tools(tmp_path)
    ran = cli(
        "tools", "run", "echo", "text=x; rm -rf ~", "count=3", "loud=TRUE", "--config", str(folder)
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == ["x; rm -rf ~", "3", "true"]
    failed = cli("tools", "run", "fails", "--config", str(folder))
    assert (failed.returncode, failed.stdout) == (1, "error: exit status 5: no luck\n")
    unknown = cli("tools", "run", "nope", "--config", str(folder))
    assert (unknown.returncode, unknown.stdout) == (
        1,
        "error: unknown tool 'nope' (known: echo, fails)\n",
    )


def test_run_refuses_arguments_the_tool_does_not_take(tmp_path: Path) -> None:
    folder = folder_with_tools(tmp_path)
    for args, message in [
        (["colour=red"], "echo has no parameter 'colour' (it has: text, count, loud)"),
        (["count=three"], "count='three' is not a valid integer"),
        (["loud=maybe"], "loud='maybe' is not true or false"),
        (["text"], "'text' is not KEY=VALUE"),
    ]:
        ran = cli("tools", "run", "echo", *args, "--config", str(folder))
        assert ran.returncode == 2 and message in ran.stderr, ran.stderr
    assert "which tool?" in cli("tools", "run", "--config", str(folder)).stderr


def test_check(tmp_path: Path) -> None:
    folder = folder_with_tools(tmp_path)
    ok = cli("tools", "check", "--config", str(folder))
    assert ok.returncode == 0
    assert ok.stdout.strip() == f"{folder / 'tools'}: 2 tools ok (echo, fails)"
    write_tool(folder, "broken", ["no-such-program-here"], extra="colour = 1")
    bad = cli("tools", "check", "--config", str(folder))
    assert bad.returncode == 2
    assert f"{folder / 'tools' / 'broken.toml'}: top level, unknown key 'colour'" in bad.stderr
    listed = cli("tools", "list", "--config", str(folder))
    assert listed.returncode == 2 and "unknown key 'colour'" in listed.stderr


def test_the_examples_pass_the_check_once_copied(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "tools")
    ok = cli("tools", "check", "--config", str(tmp_path))
    assert ok.returncode == 0, ok.stderr
    assert "8 tools ok (add_event, calendar, media, now, now_playing, remind, search, weather)" in (
        ok.stdout
    )


@pytest.mark.parametrize(
    ("name", "extra", "problem"),
    [
        ("adjust_volume", "", "'adjust_volume' is the name of a built-in tool"),
        ("greet", 'announce.en = ["One moment.", " "]', "announce.en[1] is blank"),
    ],
)
def test_a_tool_the_dialogue_would_drop_fails_the_check_and_the_start(
    tmp_path: Path, name: str, extra: str, problem: str
) -> None:
    """Before, both passed `tools check`; the dialogue then dropped them with a warning."""
    folder = tmp_path / "config"
    write_tool(folder, name, ["true"], extra=extra)
    checked = cli("tools", "check", "--config", str(folder))
    assert checked.returncode == 2
    assert problem in checked.stderr and f"{name}.toml" in checked.stderr
    started = subprocess.run(
        [sys.executable, "-m", "services.tools", "--config", str(folder)],
        cwd=ROOT,
        env=python_env({"XDG_STATE_HOME": str(tmp_path / "state")}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 2
    assert problem in started.stderr and "Traceback" not in started.stderr


def test_a_tool_that_modifies_asks_first_and_runs_with_yes(tmp_path: Path) -> None:
    write_program(tmp_path, "argv.py", ARGV_PRINTER)
    write_tool(tmp_path, "send", ["argv.py", "{text}"], params={"text": "string"},
               extra='modifies = true\nconfirm.en = "Send {text}?"')
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state)}
    listed = cli("tools", "list", "--config", str(tmp_path), env=env)
    assert "  modifies: runs only after the user's yes" in listed.stdout.splitlines()
    refused = cli("tools", "run", "send", "text=hi", "--config", str(tmp_path), env=env)
    assert refused.returncode == 1
    assert "send modifies: confirm on a terminal or pass --yes" in refused.stderr
    assert not (state / "desktop-assistant" / "actions.jsonl").exists()
    ran = cli("tools", "run", "send", "text=hi", "--yes", "--config", str(tmp_path), env=env)
    assert (ran.returncode, ran.stdout) == (0, '["hi"]\n'), ran.stderr
    shown = cli("actions", "--json", env=env)
    (action,) = [json.loads(line) for line in shown.stdout.splitlines()]
    assert (action["tool"], action["arguments"], action["confirmed_by"], action["session"]) == (
        "send", {"text": "hi"}, "--yes", "cli"
    )
    plain = cli("actions", env=env)
    assert plain.stdout.splitlines()[1:] == ["  confirmed by: '--yes'", '  result: ["hi"]']


def test_mcp_servers_tools_are_listed_and_run_with_the_same_yes(tmp_path: Path) -> None:
    server = ROOT / "tests" / "helpers" / "mcp_test_server.py"
    time_server = Path(sys.executable).with_name("mcp-server-time")
    notes = tmp_path / "notes.txt"
    (tmp_path / "tools").mkdir()
    (tmp_path / "config.toml").write_text(
        f"[mcp.time]\ncommand = {json.dumps([str(time_server)])}\n"
        f"[mcp.notes]\ncommand = {json.dumps([sys.executable, str(server)])}\n"
        f'env = {{ NOTES = "{notes}" }}\n'
    )
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    listed = cli("tools", "list", "--config", str(tmp_path), env=env)
    lines = listed.stdout.splitlines()
    assert "time__get_current_time: Get current time in a specific timezone" in lines, lines
    at = lines.index("notes__delete_note: Delete a note.")
    assert lines[at + 1:at + 4] == [
        f"  from mcp notes ({sys.executable} {server})", "  title (string)",
        "  modifies: runs only after the user's yes",
    ]
    now = cli("tools", "run", "time__get_current_time", "timezone=Asia/Tokyo",
              "--config", str(tmp_path), env=env)
    assert now.returncode == 0 and "Asia/Tokyo" in now.stdout, now.stderr
    refused = cli("tools", "run", "notes__delete_note", "title=old", "--config", str(tmp_path),
                  env=env)
    assert refused.returncode == 1 and not notes.exists(), refused.stderr
    done = cli("tools", "run", "notes__delete_note", "title=old", "--yes",
               "--config", str(tmp_path), env=env)
    assert (done.returncode, done.stdout) == (0, "deleted old\n"), done.stderr
    assert notes.read_text() == "deleted old\n"
    shown = cli("actions", "--json", env=env)
    assert json.loads(shown.stdout)["tool"] == "notes__delete_note"
