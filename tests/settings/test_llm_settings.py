"""``config check`` names a bad ``llm`` URL and an API key variable that is not set, as
``doctor`` does; ``config show`` never prints the key or a password in the URL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.settings.test_config import cli, write

KEY = "sk-live-0123456789abcdef"


@pytest.mark.parametrize(
    ("llm", "named"),
    [
        ("localhost:8080/v1", "`llm` 'localhost:8080/v1' has no http:// or https:// in front"),
        ("http://localhost:8080", "`llm` 'http://localhost:8080' does not end in /v1"),
    ],
)
def test_config_check_names_an_llm_url_of_the_wrong_shape(
    tmp_path: Path, llm: str, named: str
) -> None:
    checked = cli("config", "check", "--config", str(write(tmp_path, f'llm = "{llm}"\n')))
    assert checked.returncode != 0 and named in checked.stderr


def test_config_check_passes_no_llm_at_all(tmp_path: Path) -> None:
    # No LLM is a choice: the local intents answer what they know.
    checked = cli("config", "check", "--config", str(write(tmp_path, 'llm = ""\n')))
    assert checked.returncode == 0, checked.stderr


def test_config_check_names_the_unset_variable_of_the_key(tmp_path: Path) -> None:
    folder = write(tmp_path, '[dialogue]\napi_key = "env:DA_TEST_UNSET_KEY"\n')
    checked = cli("config", "check", "--config", str(folder))
    assert checked.returncode != 0
    assert "api_key = 'env:DA_TEST_UNSET_KEY' reads the environment variable " \
           "DA_TEST_UNSET_KEY, which is not set" in checked.stderr


def test_config_show_masks_the_key_and_a_password_in_the_url(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "literal",
        f'llm = "http://me:hunter2secret@127.0.0.1:4000/v1"\n[dialogue]\napi_key = "{KEY}"\n',
    )
    shown = cli("config", "show", "--json", "--config", str(folder))
    data = json.loads(shown.stdout)
    assert data["dialogue"]["api_key"] == "***"
    assert data["llm"] == "http://***@127.0.0.1:4000/v1"
    toml = cli("config", "show", "--config", str(folder)).stdout
    assert 'api_key = "***"' in toml
    for text in (shown.stdout, toml):
        assert KEY not in text and "hunter2secret" not in text
    # A variable's name is no secret: it tells the reader where the key comes from.
    named = write(tmp_path / "named", '[dialogue]\napi_key = "env:OPENAI_API_KEY"\n')
    shown = cli("config", "show", "--json", "--config", str(named))
    assert json.loads(shown.stdout)["dialogue"]["api_key"] == "env:OPENAI_API_KEY"
