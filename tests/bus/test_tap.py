"""The tap prints real traffic, as text and as JSON lines, and shows undecodable messages."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys

import pytest

from bus.client import Bus
from bus.messages import SpeakRequest, Utterance
from tests.conftest import ConfigFolder
from tests.helpers.processes import ROOT, Process, python_env


def run_tap(config_folder: ConfigFolder, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bus.tap", *config_folder.args(), *args],
        cwd=ROOT,
        env=python_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


async def feed_until_seen(config_folder: ConfigFolder, tap: subprocess.Popen[str]) -> list[str]:
    """Publish a say until the tap prints it (it proves the tap subscribed), then the rest."""
    import queue
    import threading

    assert tap.stdout is not None
    pending: queue.SimpleQueue[str] = queue.SimpleQueue()
    threading.Thread(target=lambda: [pending.put(line) for line in tap.stdout], daemon=True).start()

    def next_line(timeout: float) -> str | None:
        try:
            return pending.get(timeout=timeout)
        except queue.Empty:
            return None

    bus = Bus(config_folder.endpoints, "feeder")
    loop = asyncio.get_running_loop()
    lines: list[str] = []
    try:
        await bus.wait_connected()
        while not lines:
            bus.publish(SpeakRequest(text="ready?", turn="turn-0001"))
            line = await loop.run_in_executor(None, next_line, 0.2)
            while line is not None:
                if "ready?" in line:  # skip heartbeats printed before our say
                    lines.append(line)
                    break
                line = next_line(0)
        bus.publish(Utterance(pcm=b"\0\0" * 16000, rate=16000, duration=1.0, speech_end=2.0))
        bus.send_raw([b"tts.say", b"\xc1 not msgpack"])
        bus.publish(SpeakRequest(text="last", turn="turn-0002"))
        while "last" not in lines[-1]:
            line = await loop.run_in_executor(None, next_line, 10.0)
            assert line is not None, f"the tap stopped printing after {lines}"
            lines.append(line)
    finally:
        await bus.close()
    return lines


def test_tap_prints_lines(broker: Process, config_folder: ConfigFolder) -> None:
    tap = run_tap(config_folder)
    try:
        lines = asyncio.run(feed_until_seen(config_folder, tap))
    finally:
        tap.terminate()
        tap.wait(5)
    text = "".join(lines)
    assert "tts.say feeder [urn-0001] text='ready?'" in text
    utterance = next(line for line in lines if "audio.utterance" in line)
    assert "pcm=<32000 bytes, 1.00 s>" in utterance and "rate=16000" in utterance
    assert "INVALID tts.say (not msgpack" in text


def test_tap_prints_json_lines(broker: Process, config_folder: ConfigFolder) -> None:
    tap = run_tap(config_folder, "--json", "tts.", "audio.")
    try:
        lines = asyncio.run(feed_until_seen(config_folder, tap))
    finally:
        tap.terminate()
        tap.wait(5)
    records = [json.loads(line) for line in lines]
    say = records[0]
    assert say["topic"] == "tts.say" and say["text"] == "ready?" and say["src"] == "feeder"
    assert say["turn"] == "turn-0001" and isinstance(say["ts"], float)
    utterance = next(r for r in records if r["topic"] == "audio.utterance")
    assert utterance["pcm"] == {"bytes": 32000} and utterance["duration"] == 1.0
    invalid = next(r for r in records if "invalid" in r)
    assert invalid["topic"] == "tts.say" and "not msgpack" in invalid["invalid"]
    assert not any(r.get("topic") == "sys.heartbeat" for r in records)  # filtered by prefix


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_tap_stops_cleanly_on_ctrl_c_and_sigterm_even_started_with_sigint_ignored(
    broker: Process, config_folder: ConfigFolder, signum: signal.Signals
) -> None:
    # A background job of a non-interactive shell (or nohup) starts with SIGINT ignored.
    tap = subprocess.Popen(
        [sys.executable, "-m", "bus.tap", *config_folder.args(), "tts."],
        cwd=ROOT, env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert tap.stderr is not None
        assert tap.stderr.readline().startswith("tap: listening")
        tap.send_signal(signum)
        assert tap.wait(10) == 0
    finally:
        if tap.poll() is None:
            tap.kill()
            tap.wait(5)
