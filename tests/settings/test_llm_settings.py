"""``config check`` names a bad ``llm`` URL, as ``doctor`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.settings.test_config import cli, write


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
