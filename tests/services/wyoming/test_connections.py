"""The Wyoming server's connections in this process: well-formed requests are answered
through the limits, and idle connections and half-sent frames are closed while others
are served (issue 30).

``BoundServer`` and ``WyomingHandler`` on a real socket on 127.0.0.1, spoken to by the
wyoming package's own client, with a bridge that answers in place of the bus and the
deadlines shortened to a second: a connection that never sends, one that stops in the
middle of a header line and one that stops in the middle of a payload.
"""

from __future__ import annotations

import asyncio
import functools
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_read_event
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop
from wyoming.wake import Detect

import services.wyoming.handler as handler_module
from services.wyoming.handler import WyomingHandler
from services.wyoming.service import BoundServer

DEADLINE = 1.0


@pytest.fixture(autouse=True)
def short_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    # raising=False: before issue 30 these did not exist, and nothing was ever closed
    monkeypatch.setattr(handler_module, "IDLE_TIMEOUT", DEADLINE, raising=False)
    monkeypatch.setattr(handler_module, "HEADER_TIMEOUT", DEADLINE, raising=False)


class Bridge:
    """Answers as the STT and the speaker would: the words heard, one chunk per sentence."""

    def __init__(self) -> None:
        self.heard: list[int] = []

    async def transcribe(self, pcm: bytes, turn: str | None = None,
                         site: str | None = None) -> Any:
        self.heard.append(len(pcm))
        return SimpleNamespace(text="what time is it", lang="en")

    async def synthesize(self, text: str, lang: str, turn: str | None = None,
                         site: str | None = None) -> Any:
        yield SimpleNamespace(rate=24000, pcm=bytes(480), final=False)
        yield SimpleNamespace(rate=24000, pcm=b"", final=True)


class Detector:
    model = "okay_nabu"

    def hear(self, pcm: bytes) -> bool:
        return any(pcm)


@asynccontextmanager
async def serving(bridge: Bridge | None = None) -> AsyncIterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    server = BoundServer(sock)
    await server.start(functools.partial(
        WyomingHandler, bridge=bridge, info=Info(), voices={"en": ["en"]},  # type: ignore[arg-type]
        default_lang="en", wake=Detector))
    try:
        yield sock.getsockname()[1]
    finally:
        await server.stop()
        sock.close()


async def until_closed(reader: asyncio.StreamReader) -> list[Event]:
    """What the server sends before it closes the connection (within 3 deadlines)."""
    events = []
    async with asyncio.timeout(3 * DEADLINE + 1):
        while (event := await async_read_event(reader)) is not None:
            events.append(event)
    return events


def test_idle_and_half_sent_frames_are_closed_while_others_are_served() -> None:
    async def body() -> tuple[list[Event], ...]:
        async with serving() as port:
            idle = await asyncio.open_connection("127.0.0.1", port)
            half_line = await asyncio.open_connection("127.0.0.1", port)
            half_line[1].write(b'{"type": "audio-chunk", "data": {"rate": 16')
            half_payload = await asyncio.open_connection("127.0.0.1", port)
            half_payload[1].write(
                b'{"type": "audio-chunk", "data": {"rate": 16000, "width": 2, "channels": 1},'
                b' "payload_length": 3200}\n' + bytes(1000))
            # Served meanwhile, and kept open past the deadline while it keeps sending.
            client = AsyncTcpClient("127.0.0.1", port)
            await client.connect()
            await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
            for _ in range(int(3 * DEADLINE / 0.25)):
                await asyncio.sleep(0.25)
                await client.write_event(
                    AudioChunk(rate=16000, width=2, channels=1, audio=bytes(320)).event())
            await client.write_event(Describe().event())
            info = await client.read_event()
            await client.disconnect()
            return (await until_closed(idle[0]), await until_closed(half_line[0]),
                    await until_closed(half_payload[0]), [info] if info else [])

    idle, half_line, half_payload, served = asyncio.run(body())
    assert [e.type for e in served] == ["info"]
    for events in (idle, half_line, half_payload):
        assert [e.type for e in events] == ["error"], events
        assert events[0].data["code"] == "timeout"
    assert "nothing received for" in idle[0].data["text"]
    assert "after its first byte" in half_line[0].data["text"]
    assert "after its first byte" in half_payload[0].data["text"]


async def ask(port: int, *events: Event, until: str) -> list[Event]:
    client = AsyncTcpClient("127.0.0.1", port)
    await client.connect()
    try:
        for event in events:
            await client.write_event(event)
        got = []
        async with asyncio.timeout(10):
            while (event := await client.read_event()) is not None:
                got.append(event)
                if event.type == until:
                    return got
        raise AssertionError(f"closed after {got}")
    finally:
        await client.disconnect()


def test_well_formed_requests_are_answered_through_the_limits() -> None:
    second_at_48k_stereo = AudioChunk(rate=48000, width=2, channels=2, audio=bytes(192000))
    bridge = Bridge()

    async def body() -> list[list[Event]]:
        async with serving(bridge) as port:
            return [
                await ask(port, Transcribe(language="en").event(),
                          AudioStart(rate=48000, width=2, channels=2).event(),
                          second_at_48k_stereo.event(), AudioStop().event(), until="transcript"),
                await ask(port, Synthesize(text="It is noon.").event(), until="audio-stop"),
                await ask(port, SynthesizeStart().event(),
                          SynthesizeChunk(text="It is noon. ").event(),
                          SynthesizeChunk(text="Have lunch.").event(), SynthesizeStop().event(),
                          until="synthesize-stopped"),
                await ask(port, Detect().event(),
                          AudioChunk(rate=16000, width=2, channels=1, audio=bytes(320)).event(),
                          AudioChunk(rate=16000, width=2, channels=1,
                                     audio=b"\x01\x00" * 160).event(), until="detection"),
            ]

    transcribed, spoken, streamed, detected = asyncio.run(body())
    assert Transcript.from_event(transcribed[-1]).text == "what time is it"
    assert bridge.heard == [32000]  # one second, at 16 kHz mono
    assert [e.type for e in spoken] == ["audio-start", "audio-chunk", "audio-stop"]
    assert [e.type for e in streamed] == ["audio-start", "audio-chunk", "audio-chunk",
                                          "audio-stop", "synthesize-stopped"]
    assert [e.type for e in detected] == ["detection"]
