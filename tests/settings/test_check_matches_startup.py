"""A config that passes ``config check`` starts: the check refuses what a service refuses,
and its messages say what to write instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from settings import ConfigError, load_config
from settings.schema import BrainConfig
from settings.startup import brain_problems
from tests.helpers.processes import ROOT, python_env
from tests.settings.test_config import cli, write


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 1e-6 kept a CPU busy with heartbeats; 1e300 killed the broker's heartbeat thread
        ("[bus]\nheartbeat = 1e-6\n", "greater than or equal to 0.05 (got 1e-06)"),
        ("[bus]\nheartbeat = 1e300\n", "less than or equal to 60 (got 1e+300)"),
        # in bytes these overflow the C long that setrlimit takes
        ("[tools]\nmemory_mb = 9999999999999999\n", "or equal to 1048576 (got 9999999999999999)"),
        ("[tools]\ncpu_seconds = 9223372036854775807\n", "key 'cpu_seconds': expected less"),
        ("[tools]\noutput_bytes = 9223372036854775807\n", "[tools] key 'output_bytes'"),
        # exec refuses such an environment: every tool call would fail
        ("[env]\n'A=B' = 'x'\n", "'A=B' cannot name an environment variable"),
        ('[env]\nA = "x\\u0000y"\n', "the value of 'A' contains a NUL character"),
        ("[env]\n'' = 'x'\n", "'' cannot name an environment variable"),
        # choices are listed, not a regular expression
        ("[listen]\nmode = 'ptt'\n", "expected 'wake', 'always' or 'push' (got 'ptt')"),
        # the wake word engine's models are listed
        ("[wake]\nmodel = 'okay_nabo'\n", "'okay_nabo'; known: alexa, hey_jarvis, hey_mycroft, "
         "okay_nabu"),
        ("[wake]\nmodel = '/nonexistent/word.json'\n", "no wake word model file"),
        # an unknown key gets the nearest known one
        ("[bus]\nheartbaet = 1\n", "[bus] unknown key 'heartbaet' (did you mean 'heartbeat'?)"),
        ("cardd = 'x'\n", "top level, unknown key 'cardd' (did you mean 'card'?)"),
        ("[voice.en]\nblnd = {}\n", "[voice.en] unknown key 'blnd' (did you mean 'blend'?)"),
    ],
)
def test_config_refuses_what_breaks_a_service(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert expected in str(info.value)


def test_check_refuses_a_backend_the_stt_would_not_start_with(tmp_path: Path) -> None:
    # ``[whisper] backend`` is any name of hearing/stt/backends.py's registry, which the
    # schema cannot import: the check asks the registry, as the STT's start does.
    checked = cli("config", "check", "--config", str(write(tmp_path / "typo", "[whisper]\n"
                                                          "backend = 'servr'\n")))
    assert checked.returncode == 2
    assert "unknown [whisper] backend 'servr'; known: auto, server, embedded" in checked.stderr
    fine = cli("config", "check", "--config", str(write(tmp_path / "fine", "[whisper]\n"
                                                       "backend = 'server'\n")))
    assert fine.returncode == 0, fine.stderr


def test_check_and_the_mic_refuse_a_wake_engine_there_is_not(tmp_path: Path) -> None:
    import argparse

    from services.base.runner import StartupError
    from services.mic.service import start

    folder = write(tmp_path, "[wake]\nengine = 'porcupine'\n")
    checked = cli("config", "check", "--config", str(folder))
    assert checked.returncode == 2
    said = "unknown [wake] engine 'porcupine'; known: microwakeword, openwakeword, either"
    assert said in checked.stderr
    config, _ = load_config(folder)
    with pytest.raises(StartupError, match="mic: unknown \\[wake\\] engine 'porcupine'"):
        start(config, argparse.Namespace())


def test_a_far_off_key_gets_no_guess(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "[bus]\nzzzzqqq = 1\n"))
    assert "unknown key 'zzzzqqq'" in str(info.value) and "did you mean" not in str(info.value)


def test_tool_file_limits_are_bounded_as_the_config_is(tmp_path: Path) -> None:
    write(tmp_path, "")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "big.toml").write_text(
        'description = "d"\ncommand = ["true"]\n[limits]\nmemory_mb = 9999999999999999\n'
    )
    checked = cli("config", "check", "--config", str(tmp_path))
    assert checked.returncode == 2
    assert "memory_mb" in checked.stderr and "1048576" in checked.stderr


def test_the_brain_rule_lives_in_settings() -> None:
    assert brain_problems(BrainConfig(host="127.0.0.1")) == []
    assert brain_problems(BrainConfig(host="::1")) == []
    assert brain_problems(BrainConfig(host="0.0.0.0", token="s3cret")) == []
    [problem] = brain_problems(BrainConfig(host="0.0.0.0"))
    assert "'0.0.0.0' is not loopback" in problem and "token" in problem


def test_check_and_the_brain_refuse_a_tokenless_public_host_alike(tmp_path: Path) -> None:
    folder = write(tmp_path, "[brain]\nhost = '0.0.0.0'\nport = 1\n")
    checked = cli("config", "check", "--config", str(folder))
    assert checked.returncode == 2, checked.stdout
    assert "[brain] host '0.0.0.0' is not loopback" in checked.stderr
    brain = subprocess.run(
        [sys.executable, "-m", "services.brain", "--config", str(folder)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
    )
    assert brain.returncode == 2
    assert "[brain] host '0.0.0.0' is not loopback" in brain.stderr


def test_check_refuses_a_voice_the_voices_file_lacks(tmp_path: Path) -> None:
    folder = write(tmp_path, "[voice.en]\nblend = { xx_nobody = 1.0 }\n")
    checked = cli("config", "check", "--config", str(folder))
    assert checked.returncode == 2, checked.stdout
    assert "[voice.en] names voice 'xx_nobody'" in checked.stderr
    assert str(folder / "config.toml") in checked.stderr


def test_check_passes_the_built_in_voices(tmp_path: Path) -> None:
    checked = cli("config", "check", "--config", str(write(tmp_path, "")))
    assert checked.returncode == 0, checked.stderr
