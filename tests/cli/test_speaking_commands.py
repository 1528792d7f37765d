"""``desktop-assistant volume`` and ``say`` against a real TTS service process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from desktop_assistant.exit_codes import ExitCode
from tests.helpers.processes import ROOT, python_env
from tests.helpers.speaker import RunningTTS


@pytest.fixture(scope="module")
def tts() -> Iterator[RunningTTS]:
    running = RunningTTS("espeak", None)  # no sound card: degraded, still speaks
    try:
        running.start(ready=("degraded",))
        yield running
    finally:
        running.close()


def cli(tts: RunningTTS, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop_assistant", *args, *tts.folder.args()],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60, check=False,
    )


def test_volume_prints_and_changes_the_volume(tts: RunningTTS) -> None:
    assert cli(tts, "volume", "set", "0.8").stdout == "0.8\n"
    assert cli(tts, "volume").stdout == "0.8\n"
    assert cli(tts, "volume", "up").stdout == "0.9\n"
    assert cli(tts, "volume", "down").stdout == "0.8\n"


@pytest.mark.parametrize("args", [["set"], ["set", "2.5"], ["up", "0.3"]])
def test_bad_volume_arguments_are_refused(tts: RunningTTS, args: list[str]) -> None:
    done = cli(tts, "volume", *args)
    assert done.returncode == 2
    assert "volume" in done.stderr


def test_say_speaks_through_the_running_service(tts: RunningTTS) -> None:
    before = set(tts.wav_dir.glob("*.wav")) if tts.wav_dir.exists() else set()
    done = cli(tts, "say", "Ciao a tutti", "--lang", "it")
    assert done.returncode == 0, done.stderr
    assert len(set(tts.wav_dir.glob("*.wav")) - before) == 1


def test_without_a_tts_service_the_commands_say_so(tts: RunningTTS) -> None:
    tts.stop()
    try:
        volume = cli(tts, "volume")
        assert volume.returncode == ExitCode.UNAVAILABLE
        assert "no TTS service answered" in volume.stderr
        say = cli(tts, "say", "Hello")
        assert say.returncode == ExitCode.UNAVAILABLE
        assert "no TTS service is running" in say.stderr
    finally:
        tts.start(ready=("degraded",))
