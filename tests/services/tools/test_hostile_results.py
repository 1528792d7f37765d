"""Results keep secrets out of sight (whole, and only secrets); hostile arguments are clean
errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.tools.consent import MAX_CONTENT
from services.tools.runner import MAX_STDERR_LINE
from settings.secrets import Redactor, is_secret
from tests.services.tools.helpers import (
    ARGV_PRINTER,
    PYTHON,
    make_runner,
    write_program,
    write_tool,
)
from tests.services.tools.test_runner import run

SECRET = "sk-live-0123456789abcdef"


@pytest.mark.parametrize("where", ["stdout", "stderr"])
def test_a_secret_cut_by_the_cap_leaves_no_part_behind(tmp_path: Path, where: str) -> None:
    # the secret straddles the cap: cut first, its first half would reach the model
    if where == "stdout":
        text, code = "x" * (MAX_CONTENT - 10), 0
    else:
        text, code = "y" * (MAX_STDERR_LINE - 10), 1
    script = f"import os, sys\nprint({text!r} + os.environ['API_KEY'], file=sys.{where})\n"
    write_tool(tmp_path, "leak", [PYTHON, "-c", script + f"sys.exit({code})"])
    outcome = run(make_runner(tmp_path, env={"API_KEY": SECRET}), "leak")
    assert SECRET[:4] not in outcome.content
    assert "[env API" in outcome.content  # masked, then cut
    assert len(outcome.content) <= MAX_CONTENT
    if where == "stderr":
        assert len(outcome.content) <= len("error: exit status 1: ") + MAX_STDERR_LINE


def test_only_secrets_are_masked(tmp_path: Path) -> None:
    config = tmp_path
    shown = 'echo "$TZ $CALENDAR_DIR $API_KEY $DB_PASSWORD $HOME_ADDR"'
    write_tool(config, "show", ["sh", "-c", shown])
    env = {
        "TZ": "Europe/Rome",
        "CALENDAR_DIR": "/home/me/calendars",
        "API_KEY": SECRET,
        "DB_PASSWORD": "hunter22",
        "HOME_ADDR": "Via Roma 1, Torino",
    }
    runner = make_runner(config, env=env, secret_env=["HOME_ADDR"])
    assert run(runner, "show").content == (
        "Europe/Rome /home/me/calendars [env API_KEY] [env DB_PASSWORD] [env HOME_ADDR]"
    )


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("github_token", True),
        ("CLIENT_SECRET", True),
        ("SMTP_PASS", True),
        ("BASIC_AUTH", True),
        ("GOOGLE_CREDENTIALS", True),
        ("PRIVATE_NOTE", True),
        ("TZ", False),
        ("LANG", False),
        ("SEARXNG_URL", False),
        ("WEATHER_ENV", False),
    ],
)
def test_a_name_says_whether_its_value_is_secret(name: str, secret: bool) -> None:
    assert is_secret(name) is secret
    assert Redactor({name: "value-1234"})("is value-1234") == (
        f"is [env {name}]" if secret else "is value-1234"
    )


def test_secret_env_must_name_env_values(tmp_path: Path) -> None:
    from settings import ConfigError
    from settings.loader import load_config

    (tmp_path / "config.toml").write_text('[tools]\nsecret_env = ["HOME_ADDR"]\n[env]\nTZ = "x"\n')
    with pytest.raises(ConfigError, match="secret_env"):
        load_config(tmp_path)


def test_a_huge_integer_argument_is_a_clean_error(tmp_path: Path) -> None:
    config = tmp_path
    write_program(config, "argv.py", ARGV_PRINTER)
    write_tool(config, "echo", ["argv.py", "{n}"], params={"n": "integer"})
    outcome = run(make_runner(config), "echo", '{"n": ' + "9" * 5000 + "}")
    assert not outcome.ok
    assert outcome.content.startswith("error: arguments are not usable: ")
    assert "4300 digits" in outcome.content
