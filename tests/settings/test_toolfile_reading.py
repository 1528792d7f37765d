"""Tool files are read only when regular and bounded; editors' files are left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from settings import ConfigError
from settings.loader import MAX_FILE
from settings.toolfiles import check_tool_files, load_tools
from tests.settings.test_config import cli
from tests.settings.test_toolfiles import WEATHER, tool_file


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    tool_file(tmp_path, "weather", WEATHER)
    os.mkfifo(tmp_path / "tools" / "x.toml")
    # a real process each: reading the FIFO would block them until the 60 s timeout
    for command in (["tools", "check"], ["config", "check"]):
        checked = cli(*command, "--config", str(tmp_path))
        assert checked.returncode == 2, checked.stderr
        assert f"{tmp_path / 'tools' / 'x.toml'}: not a regular file" in checked.stderr


def test_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "zero.toml").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="zero.toml: not a regular file"):
        load_tools(tmp_path)


def test_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    path = tool_file(tmp_path, "huge", WEATHER + "#" * MAX_FILE + "\n")
    with pytest.raises(ConfigError, match=f"huge.toml: larger than {MAX_FILE} bytes"):
        load_tools(tmp_path)
    assert path.stat().st_size > MAX_FILE


def test_editor_files_are_ignored_with_a_note(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tool_file(tmp_path, "now", 'description = "The time."\ncommand = ["date"]\n')
    tools = tmp_path / "tools"
    (tools / ".#now.toml").symlink_to("me@host.1234:1700000000")  # Emacs' lock: dangling
    (tools / "#now.toml#").write_text("half = ")
    (tools / "now.toml~").write_text("half = ")
    (tools / ".now.toml.swp").write_bytes(b"\0\1vim")
    (tools / ".hidden.toml").write_text("half = ")
    with caplog.at_level("INFO"):
        assert list(load_tools(tmp_path)) == ["now"]
    assert ".#now.toml: ignored" in caplog.text
    assert check_tool_files(tmp_path) == []
    checked = cli("tools", "check", "--config", str(tmp_path))
    assert checked.returncode == 0, checked.stderr
