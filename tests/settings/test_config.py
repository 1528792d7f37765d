"""The config folder: defaults merged key by key, unknown keys and wrong types named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from settings import ConfigError, load_config
from settings.schema import Config
from tests.helpers.processes import ROOT, python_env


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)
    return folder


def test_missing_folder_gives_the_built_in_defaults(tmp_path: Path) -> None:
    config, folder = load_config(tmp_path / "absent")
    assert folder == tmp_path / "absent"
    without_keys = {"bus": {"keys"}}
    assert config.model_dump(exclude=without_keys) == Config().model_dump(exclude=without_keys)
    assert config.bus.keys == str(tmp_path / "absent" / "keys")  # beside the config in use
    assert config.llm == "http://localhost:8181/v1"
    assert config.tool_rounds == 3
    assert config.whisper.port == 8182
    assert config.voice["en"].blend == {"af_heart": 1.0}


def test_defaults_survive_a_partial_file(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "tool_rounds = 5\n[whisper]\nport = 9000\n[voice.en]\nblend = { af_bella = 1.0 }\n"
        '[voice.ja]\nlang = "ja"\nblend = { jf_alpha = 1.0 }\n',
    )
    config, _ = load_config(folder)
    assert config.tool_rounds == 5
    assert config.whisper.port == 9000
    assert config.whisper.model.endswith("ggml-large-v3-turbo-q5_0.bin")  # kept
    assert config.voice["en"].lang == "en-us"  # merged key by key
    assert config.voice["en"].blend == {"af_bella": 1.0}
    assert config.voice["it"].lang == "it"
    assert config.voice["ja"].blend == {"jf_alpha": 1.0}
    assert config.llm == "http://localhost:8181/v1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cardd = 'x'\n", "top level, unknown key 'cardd'"),
        ("[whisper]\nprot = 1\n", "[whisper] unknown key 'prot'"),
        ("[bus]\npub = 'ipc:///x'\nextra = 1\n", "[bus] unknown key 'extra'"),
        ("[nosuchtable]\na = 1\n", "unknown key 'nosuchtable'"),
        ("[voice.ja]\nlang = 'ja'\nblend = {}\nbogus = 1\n", "[voice.ja] unknown key 'bogus'"),
    ],
)
def test_unknown_key_fails_with_its_name(tmp_path: Path, text: str, expected: str) -> None:
    folder = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(folder)
    assert expected in str(info.value)
    assert str(folder / "config.toml") in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tool_rounds = 'three'\n", "key 'tool_rounds': expected a valid integer"),
        ("[whisper]\nport = '8182'\n", "[whisper] key 'port': expected a valid integer"),
        ("[vad]\nsilence = true\n", "[vad] key 'silence': expected a valid number"),
        ("[voice.en]\nblend = { af_heart = 'x' }\n", "[voice.en.blend] key 'af_heart'"),
        ("[env]\nKEY = 3\n", "[env] key 'KEY': expected a valid string"),
        ("[voice.de]\nlang = 'de'\n", "[voice.de] missing required key 'blend'"),
    ],
)
def test_wrong_type_fails_with_its_name(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        load_config(write(tmp_path, text))


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    folder = write(tmp_path, "card = \n")
    with pytest.raises(ConfigError, match="config.toml: invalid TOML"):
        load_config(folder)


def test_env_variable_and_xdg_are_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "xdg" / "desktop-assistant", "card = 'from-xdg'\n")
    write(tmp_path / "env", "card = 'from-env'\n")
    monkeypatch.delenv("DESKTOP_ASSISTANT_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert load_config()[0].card == "from-xdg"
    monkeypatch.setenv("DESKTOP_ASSISTANT_CONFIG", str(tmp_path / "env"))
    assert load_config()[0].card == "from-env"
    assert load_config(tmp_path / "absent")[0].card == ""


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop_assistant", *args],
        cwd=ROOT,
        env=python_env(env),
        stdin=subprocess.DEVNULL,  # no terminal: nothing may wait for a keypress
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_config_show_and_check_honour_config(tmp_path: Path) -> None:
    folder = write(tmp_path / "good", "card = 'USB Mic'\n[whisper]\nport = 9001\n")
    shown = cli("config", "show", "--json", "--config", str(folder))
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["card"] == "USB Mic" and data["whisper"]["port"] == 9001
    assert data["kokoro"]["speed"] == 1.0
    toml = cli("config", "show", "--config", str(folder))
    assert 'card = "USB Mic"' in toml.stdout and "[whisper]" in toml.stdout
    assert cli("config", "check", "--config", str(folder)).returncode == 0

    bad = write(tmp_path / "bad", "[whisper]\nprot = 1\n")
    checked = cli("config", "check", "--config", str(bad))
    assert checked.returncode != 0
    assert "[whisper] unknown key 'prot'" in checked.stderr
