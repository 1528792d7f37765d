"""The STT service with whisper-server: a protocol-faithful stand-in over real HTTP, started,
watched and restarted by the service itself."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bus.client import Bus
from bus.messages import Error, Heartbeat, SpeakRequest, Transcript, Utterance
from tests.helpers.busrun import with_buses
from tests.helpers.polling import until
from tests.helpers.ports import free_port
from tests.helpers.processes import ROOT
from tests.helpers.service_stack import Stack, expect, wait_state

STANDIN = ROOT / "tests" / "helpers" / "whisper_server_standin.py"
AUDIO = bytes(range(256)) * 125  # 1 s of 16 kHz PCM16


class Whisper:
    """The stand-in's script and request log, in a folder of this test."""

    def __init__(self, folder: Path) -> None:
        self.script = folder / "script.json"
        self.log = folder / "requests.jsonl"
        self.model = folder / "ggml-test.bin"
        self.model.write_bytes(b"ggml")
        self.port = free_port()
        self.answer()

    def env(self) -> dict[str, str]:
        return {"WHISPER_STANDIN_SCRIPT": str(self.script), "WHISPER_STANDIN_LOG": str(self.log)}

    def answer(self, **plan: Any) -> None:
        self.script.write_text(json.dumps(plan))

    def entries(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def inferences(self) -> list[dict[str, Any]]:
        return [e for e in self.entries() if e.get("path") == "/inference"]

    def pids(self) -> list[int]:
        return [e["started"] for e in self.entries() if "started" in e]

    def config(self, backend: str = "server", **extra: Any) -> str:
        keys = {"backend": backend, "server": str(STANDIN), "model": str(self.model),
                "port": self.port, "timeout": 2.0, "start_timeout": 20.0, **extra}
        return "[whisper]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())


@pytest.fixture
def whisper(tmp_path: Path) -> Whisper:
    return Whisper(tmp_path)


@pytest.fixture
def stack() -> Iterator[Stack]:
    stack = Stack()
    try:
        yield stack
    finally:
        stack.close()


def utterance(turn: str, audio: bytes = AUDIO, partial: bool = False) -> Utterance:
    return Utterance(pcm=audio, rate=16000, duration=len(audio) / 32000, speech_end=time.time(),
                     partial=partial, turn=turn)


async def listening(bus: Bus) -> None:
    bus.subscribe(Transcript.TOPIC, Error.TOPIC, SpeakRequest.TOPIC, Heartbeat.TOPIC)
    await bus.wait_path(bus)


async def ask(bus: Bus, turn: str, *messages: Utterance) -> Transcript:
    waiter = await expect(bus, Transcript, lambda t: t.turn == turn, timeout=20)
    for msg in messages or (utterance(turn),):
        bus.publish(msg)
    return await waiter


async def fails(bus: Bus, turn: str) -> tuple[Error, SpeakRequest]:
    error = await expect(bus, Error, lambda e: e.turn == turn, timeout=20)
    say = await expect(bus, SpeakRequest, lambda s: s.turn == turn, timeout=20)
    bus.publish(utterance(turn))
    return await error, await say


def test_the_service_starts_whisper_server_and_speaks_its_protocol(
    stack: Stack, whisper: Whisper
) -> None:
    whisper.answer(load=1.0, text=" What time is it?\n", language="english")
    stack.write(whisper.config())
    stt = stack.start("services.stt", env=whisper.env())

    async def body(bus: Bus) -> Transcript:
        await listening(bus)
        await wait_state(bus, "stt", "ready", timeout=30)
        return await ask(bus, "t1")

    got = with_buses(stack.endpoints, ["test"], body)
    assert (got.text, got.lang, got.turn, got.duration) == ("What time is it?", "en", "t1", 1.0)
    [started] = whisper.entries()[:1]
    assert started["argv"] == ["-m", str(whisper.model), "--host", "127.0.0.1",
                               "--port", str(whisper.port), "-l", "auto"]
    health = [e["status"] for e in whisper.entries() if e.get("path") == "/health"]
    assert health[0] == 503 and health[-1] == 200  # it waited while the model loaded
    [request] = whisper.inferences()
    assert request["fields"] == {"language": "auto", "response_format": "verbose_json"}
    assert request["audio"] == {"rate": 16000, "channels": 1, "width": 2, "frames": 16000}
    assert stt.stop() == 0
    pid = whisper.pids()[0]
    assert not Path(f"/proc/{pid}").exists() or _zombie(pid)  # stopped with the service


def _zombie(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_whisper_server_is_restarted_when_it_dies(stack: Stack, whisper: Whisper) -> None:
    stack.write(whisper.config())
    stack.start("services.stt", env=whisper.env())

    async def body(bus: Bus) -> None:
        await listening(bus)
        await wait_state(bus, "stt", "ready", timeout=30)
        assert (await ask(bus, "before")).text == "Hello."
        whisper.answer(load=3.0)  # the next start takes a while: the outage is observable
        os.kill(whisper.pids()[0], signal.SIGKILL)
        down = await wait_state(bus, "stt", "degraded", timeout=10)
        assert "whisper-server exited" in down.detail
        error, say = await fails(bus, "during")
        assert error.code == "stt-unavailable" and say.kind == "error"
        await wait_state(bus, "stt", "ready", timeout=30)
        assert (await ask(bus, "after")).text == "Hello."

    with_buses(stack.endpoints, ["test"], body)
    assert len(whisper.pids()) == 2


@pytest.mark.parametrize(
    ("plan", "code", "detail"),
    [
        ({"status": 500, "error": "failed to process audio"}, "stt-failed", "500"),
        ({"status": 400, "error": "failed to read audio data"}, "stt-failed", "read audio"),
        ({"delay": 3.0}, "stt-unavailable", "longer than 2 s"),
    ],
)
def test_failures_are_errors_and_apologies_and_the_service_goes_on(
    stack: Stack, whisper: Whisper, plan: dict[str, Any], code: str, detail: str
) -> None:
    stack.write(whisper.config())
    stack.start("services.stt", env=whisper.env())

    async def body(bus: Bus) -> None:
        await listening(bus)
        await wait_state(bus, "stt", "ready", timeout=30)
        whisper.answer(**plan)
        error, say = await fails(bus, "bad")
        assert (error.service, error.code) == ("stt", code)
        assert detail in error.message
        assert say.text == "Sorry, I could not understand that."
        assert (say.lang, say.kind, say.seq, say.final) == ("en", "error", 0, True)
        whisper.answer(text=" Still here.")
        assert (await ask(bus, "good")).text == "Still here."

    with_buses(stack.endpoints, ["test"], body)


def test_non_speech_is_dropped_and_languages_become_iso_codes(
    stack: Stack, whisper: Whisper
) -> None:
    stack.write(whisper.config())
    stack.start("services.stt", env=whisper.env())

    async def body(bus: Bus) -> list[Transcript]:
        await listening(bus)
        await wait_state(bus, "stt", "ready", timeout=30)
        for count, text in enumerate([" [BLANK_AUDIO]\n", " (music)", " ."], start=1):
            whisper.answer(text=text)
            bus.publish(utterance(f"noise-{count}"))
            # Once the stand-in has answered, its script may change.
            await until(lambda n=count: len(whisper.inferences()) >= n, "the stand-in answered")
        whisper.answer(text=" Che ore sono?\n", language="italian")
        # Any transcript of the noises would come first and be taken by this wait.
        waiter = await expect(bus, Transcript, timeout=10)
        bus.publish(utterance("italian"))
        return [await waiter]

    [italian] = with_buses(stack.endpoints, ["test"], body)
    assert (italian.turn, italian.text, italian.lang) == ("italian", "Che ore sono?", "it")


def test_a_partial_with_the_same_audio_as_the_final_is_transcribed_once(
    stack: Stack, whisper: Whisper
) -> None:
    stack.write(whisper.config())
    stack.start("services.stt", env=whisper.env())
    longer = AUDIO + bytes(3200)

    async def body(bus: Bus) -> None:
        await listening(bus)
        await wait_state(bus, "stt", "ready", timeout=30)
        await ask(bus, "same", utterance("same", partial=True), utterance("same"))
        assert len(whisper.inferences()) == 1
        await ask(bus, "resumed", utterance("resumed", partial=True), utterance("resumed", longer))
        frames = [r["audio"]["frames"] for r in whisper.inferences()[1:]]
        assert frames[-1] == len(longer) // 2  # the final was transcribed, not the partial

    with_buses(stack.endpoints, ["test"], body)


def test_a_server_already_answering_on_the_port_is_used(
    stack: Stack, whisper: Whisper, tmp_path: Path
) -> None:
    server = subprocess.Popen(
        [sys.executable, str(STANDIN), "-m", str(whisper.model), "--port", str(whisper.port)],
        env={**os.environ, **whisper.env()}, stdout=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        # It logs its start once it listens.
        asyncio.run(until(lambda: bool(whisper.pids()), "the stand-in listens"))
        stack.write(whisper.config(backend="auto"))
        stack.start("services.stt", env=whisper.env())

        async def body(bus: Bus) -> Transcript:
            await listening(bus)
            await wait_state(bus, "stt", "ready", timeout=30)
            return await ask(bus, "t")

        assert with_buses(stack.endpoints, ["test"], body).text == "Hello."
        assert whisper.pids() == [server.pid]  # none started by the service
    finally:
        server.kill()
        server.wait(5)


def test_a_missing_whisper_server_is_reported_and_every_utterance_answered(
    stack: Stack, whisper: Whisper
) -> None:
    stack.write(whisper.config(server="/nonexistent/whisper-server"))
    stack.start("services.stt", env=whisper.env())

    async def body(bus: Bus) -> None:
        await listening(bus)
        beat = await wait_state(bus, "stt", "degraded", timeout=30)
        assert "no whisper-server binary '/nonexistent/whisper-server'" in beat.detail
        error, say = await fails(bus, "t")
        assert error.code == "stt-unavailable" and say.kind == "error"

    with_buses(stack.endpoints, ["test"], body)
