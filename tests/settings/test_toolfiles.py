"""Tool files: parsed strictly, every problem named by file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from settings import ConfigError
from settings.checks import extra_checks
from settings.toolfiles import check_tool_files, load_tools, parse_tool
from tests.settings.test_config import cli

WEATHER = """\
description = "Current weather and short forecast. Leave place empty for home."
command = ["weather.sh", "{place}", "{when}"]
timeout = 10
announce.it = ["Controllo il meteo."]
announce.en = ["Checking the weather."]
[params.place]
type = "string"
description = "City name, empty for home"
[params.when]
type = "string"
description = "now, today or tomorrow"
[intent]
name = "HassGetWeather"
slots.place = "place"
"""


def tool_file(folder: Path, name: str, text: str) -> Path:
    path = folder / "tools" / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_weather_example_parses(tmp_path: Path) -> None:
    tool = parse_tool(tool_file(tmp_path, "weather", WEATHER))
    assert tool.name == "weather"
    assert tool.spec.command == ["weather.sh", "{place}", "{when}"]
    assert tool.catalog_entry() == {
        "name": "weather",
        "description": "Current weather and short forecast. Leave place empty for home.",
        "parameters": {
            "type": "object",
            "properties": {
                "place": {"type": "string", "description": "City name, empty for home"},
                "when": {"type": "string", "description": "now, today or tomorrow"},
            },
        },
        "announce": {"it": ["Controllo il meteo."], "en": ["Checking the weather."]},
        "timeout": 10.0,
        "intent": "HassGetWeather",
        "slots": {"place": "place"},
        "modifies": False,
        "confirm": {},
    }


ADD_EVENT = """\
description = "Add an event to the calendar."
command = ["add.py", "{title}"]
modifies = true
confirm.en = "Add {title} to your calendar?"
[params.title]
type = "string"
description = "what"
"""


def test_a_tool_that_modifies_carries_its_question(tmp_path: Path) -> None:
    entry = parse_tool(tool_file(tmp_path, "add_event", ADD_EVENT)).catalog_entry()
    assert (entry["modifies"], entry["confirm"]) == (True, {"en": "Add {title} to your calendar?"})


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("modifies = true", ""), "confirm is asked only before a tool that modifies"),
        (("{title} to", "{when} to"), "confirm.en uses {when} but there is no [params.when]"),
        (('"Add {title} to your calendar?"', '" "'), "confirm.en is blank"),
    ],
)
def test_a_question_that_cannot_be_asked_is_refused(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    with pytest.raises(ConfigError, match=expected.replace("[", r"\[").replace("{", r"\{")):
        parse_tool(tool_file(tmp_path, "add_event", ADD_EVENT.replace(*change)))


def test_an_intent_slot_must_fill_a_declared_parameter(tmp_path: Path) -> None:
    text = 'description = "d"\ncommand = ["x"]\n[intent]\nname = "HassGetWeather"\n'
    assert parse_tool(tool_file(tmp_path, "plain", text)).catalog_entry()["slots"] == {}
    with pytest.raises(ConfigError, match=r"\[intent.slots\] fills 'city' but there is no"):
        parse_tool(tool_file(tmp_path, "w", text + 'slots.city = "place"\n'))
    with pytest.raises(ConfigError, match="intent name 'get weather' is not a plain identifier"):
        parse_tool(tool_file(tmp_path, "w", text.replace("HassGetWeather", "get weather")))


def test_defaults_and_limits(tmp_path: Path) -> None:
    tool = parse_tool(tool_file(tmp_path, "now", 'description = "d"\ncommand = ["date"]\n'))
    assert tool.spec.timeout == 10.0 and tool.spec.params == {} and tool.spec.announce == {}
    assert tool.spec.limits.model_dump(exclude_none=True) == {}
    limited = parse_tool(
        tool_file(tmp_path, "l", 'description = "d"\ncommand = ["x"]\n[limits]\nmemory_mb = 64\n')
    )
    assert limited.spec.limits.memory_mb == 64


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('description = "d"\ncommand = ["x"]\ncolour = 1\n', "top level, unknown key 'colour'"),
        ('command = ["x"]\n', "top level, missing required key 'description'"),
        ('description = "d"\n', "top level, missing required key 'command'"),
        ('description = "d"\ncommand = []\n', "key 'command': list should have at least 1 item"),
        ('description = "d"\ncommand = [""]\n', "command[0] (the program) must not be empty"),
        ('description = "d"\ncommand = ["x", 3]\n', "[command] key '1': expected a valid string"),
        (
            'description = "d"\ncommand = ["x"]\ntimeout = "10"\n',
            "key 'timeout': expected a valid number",
        ),
        (
            'description = "d"\ncommand = ["x"]\ntimeout = 0\n',
            "key 'timeout': expected greater than 0",
        ),
        ('description = ""\ncommand = ["x"]\n', "key 'description': string should have at least 1"),
        (
            'description = "d"\ncommand = ["x"]\n[params.p]\ntype = "text"\ndescription = "d"\n',
            "[params.p] key 'type': expected 'string', 'integer', 'number' or 'boolean'",
        ),
        (
            'description = "d"\ncommand = ["x"]\n[params.p]\ntype = "string"\n',
            "[params.p] missing required key 'description'",
        ),
        (
            'description = "d"\ncommand = ["x"]\n[params.p]\ntype = "string"\n'
            'description = "d"\ntimeout = 5\n',
            "[params.p] unknown key 'timeout'",  # a top-level key written after a table
        ),
        (
            'description = "d"\ncommand = ["x"]\n[params."two words"]\ntype = "string"\n'
            'description = "d"\n',
            "parameter name 'two words' is not a plain identifier",
        ),
        ('description = "d"\ncommand = ["x"]\nannounce.en = "Hi"\n', "[announce] key 'en'"),
        (
            'description = "d"\ncommand = ["x"]\n[limits]\nmemory = 5\n',
            "[limits] unknown key 'memory'",
        ),
        (
            'description = "d"\ncommand = ["x"]\n[limits]\nprocesses = 0\n',
            "[limits] key 'processes'",
        ),
        (
            'description = "d"\ncommand = ["x", "{plcae}"]\n',
            "command[1] uses {plcae} but there is no",
        ),
        ('description = "d"\ncommand = ["x"\n', "invalid TOML"),
    ],
)
def test_problems_name_the_file_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tool_file(tmp_path, "broken", text)
    with pytest.raises(ConfigError) as info:
        parse_tool(path)
    assert str(info.value).startswith(f"{path}: ")
    assert expected in str(info.value)


def test_the_file_name_must_be_a_function_name(tmp_path: Path) -> None:
    path = tool_file(tmp_path, "my tool", 'description = "d"\ncommand = ["x"]\n')
    with pytest.raises(ConfigError, match="is not a valid tool name"):
        parse_tool(path)


def test_every_bad_file_is_reported_at_once(tmp_path: Path) -> None:
    tool_file(tmp_path, "a", "command = 1\n")
    tool_file(tmp_path, "b", 'description = "d"\ncommand = ["x"]\n')
    tool_file(tmp_path, "c", "description = \n")
    with pytest.raises(ConfigError) as info:
        load_tools(tmp_path)
    text = str(info.value)
    assert "a.toml" in text and "c.toml" in text and "b.toml" not in text


def test_missing_or_empty_tools_folder_means_no_tools(tmp_path: Path) -> None:
    assert load_tools(tmp_path / "absent") == {}
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "notes.txt").write_text("not a tool")
    assert load_tools(tmp_path) == {}


def test_check_also_finds_programs_that_cannot_run(tmp_path: Path) -> None:
    tool_file(tmp_path, "ok", 'description = "d"\ncommand = ["date"]\n')
    tool_file(tmp_path, "missing", 'description = "d"\ncommand = ["no-such-program"]\n')
    tool_file(tmp_path, "plain", 'description = "d"\ncommand = ["plain.sh"]\n')
    (tmp_path / "tools" / "plain.sh").write_text("#!/bin/sh\n")  # not executable
    problems = check_tool_files(tmp_path)
    assert problems == [
        f"{tmp_path / 'tools' / 'missing.toml'}: top level, key 'command': program "
        "'no-such-program' is not an executable file in tools/ or PATH",
        f"{tmp_path / 'tools' / 'plain.toml'}: top level, key 'command': program "
        "'plain.sh' is not an executable file in tools/ or PATH",
    ]
    assert extra_checks(tmp_path) == problems  # what `config check` runs


def test_check_uses_path_from_the_env_table(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "mine").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "mine").chmod(0o755)
    tool_file(tmp_path, "mine", 'description = "d"\ncommand = ["mine"]\n')
    assert check_tool_files(tmp_path) != []
    (tmp_path / "config.toml").write_text(f'[env]\nPATH = "{tmp_path / "bin"}"\n')
    assert check_tool_files(tmp_path) == []


def test_config_check_command_reports_tool_files(tmp_path: Path) -> None:
    tool_file(tmp_path, "bad", 'description = "d"\ncommand = ["date"]\nextra = 1\n')
    checked = cli("config", "check", "--config", str(tmp_path))
    assert checked.returncode == 2
    assert f"{tmp_path / 'tools' / 'bad.toml'}: top level, unknown key 'extra'" in checked.stderr
