"""A satellite that sends what cannot be read never deafens its room for good (issue 30).

A satellite is played by a TCP server on 127.0.0.1 that writes with the wyoming
package's own ``async_write_event`` (by hand where a frame is malformed); the
assistant's side is the real :class:`SatelliteLink` with its real connection loop,
backoff and heartbeat states (``SiteStates`` on a bus that records them), and an ear
that records what it is given instead of running the models.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from wyoming.audio import AudioChunk
from wyoming.event import async_read_event, async_write_event
from wyoming.pipeline import PipelineStage, RunPipeline

import services.satellites.link as link_module
from bus.messages import Heartbeat
from desktop_assistant.doctor.remote import heartbeat_checks
from services.satellites.link import SatelliteLink
from services.satellites.service import SiteStates
from settings.schema import SatelliteConfig

ROOT = Path(__file__).resolve().parents[3]
MB = 1024 * 1024

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Ear:
    """Records what the link asks of it."""

    def __init__(self) -> None:
        self.expected: list[bool] = []
        self.heard: list[int] = []

    def expect(self, wake_word: bool) -> None:
        self.expected.append(wake_word)

    def expect_follow_up(self, seconds: float) -> None:
        self.expected.append(True)

    def hear(self, pcm: bytes) -> list[Any]:
        self.heard.append(len(pcm))
        return []


@dataclass
class FakeBus:
    states: list[tuple[str, str]] = field(default_factory=list)

    def set_state(self, state: str, detail: str = "") -> None:
        self.states.append((state, detail))


class Satellite:
    """A satellite on 127.0.0.1: each connection the link makes runs the next script."""

    def __init__(self, scripts: list[Script]) -> None:
        self.scripts = scripts
        self.connections = 0
        self.first_events: list[str] = []
        self.reconnected = asyncio.Event()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        index = self.connections
        self.connections += 1
        if self.connections > 1:
            self.reconnected.set()
        event = await async_read_event(reader)
        self.first_events.append(event.type if event else "")
        try:
            await self.scripts[min(index, len(self.scripts) - 1)](reader, writer)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()


GOOD_CHUNK = AudioChunk(rate=16000, width=2, channels=1, audio=bytes(3200))


async def good(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Streams as wyoming-satellite does: run-pipeline from wake, then its mic."""
    await async_write_event(RunPipeline(start_stage=PipelineStage.WAKE,
                                        end_stage=PipelineStage.TTS).event(), writer)
    await async_write_event(GOOD_CHUNK.event(), writer)
    await reader.read()  # until the link hangs up


def sends(data: bytes, close: bool = False) -> Script:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(data)
        await writer.drain()
        if not close:
            await reader.read()

    return script


def frame(header: object, payload: bytes = b"") -> bytes:
    return (header if isinstance(header, bytes) else json.dumps(header).encode()) + b"\n" + payload


def chunk(**data: object) -> bytes:
    return frame({"type": "audio-chunk", "data": data, "payload_length": 4}, bytes(4))


@dataclass
class Served:
    satellite: Satellite
    link: SatelliteLink
    ear: Ear
    bus: FakeBus
    task: asyncio.Task[None]


@asynccontextmanager
async def serving(scripts: list[Script], wake: bool | str = True) -> AsyncIterator[Served]:
    satellite = Satellite(scripts)
    server = await asyncio.start_server(satellite.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    bus = FakeBus()
    states = SiteStates(bus, ["kitchen"])  # type: ignore[arg-type]
    ear = Ear()
    link = SatelliteLink("kitchen", SatelliteConfig(uri=f"tcp://127.0.0.1:{port}", wake=wake),
                         bridge=None, ear=ear, volume=None,  # type: ignore[arg-type]
                         voices=lambda lang: "en", lang="en", report=states.report)
    task = asyncio.ensure_future(link.run())
    try:
        yield Served(satellite, link, ear, bus, task)
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        server.close()


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link_module, "FIRST_RETRY", 0.05)
    monkeypatch.setattr(link_module, "LAST_RETRY", 0.2)


BAD = {
    "a JSON list": sends(b"[1,2,3]\n"),
    "not JSON": sends(b"hello\n"),
    "a chunk without a rate": sends(chunk(width=2, channels=1)),
    "a chunk of width 7": sends(chunk(rate=16000, width=7, channels=1)),
    "a chunk at 1 Hz": sends(chunk(rate=1, width=2, channels=1)),
    "a chunk of 3 channels": sends(chunk(rate=16000, width=2, channels=3)),
    "a bogus pipeline stage": sends(frame({"type": "run-pipeline",
                                           "data": {"start_stage": "dance", "end_stage": "tts"}})),
    "a pipeline without stages": sends(frame({"type": "run-pipeline", "data": {}})),
    "no type": sends(frame({"data": {}})),
    "closed mid-frame": sends(frame({"type": "audio-chunk", "data": {"rate": 16000, "width": 2,
                                                                      "channels": 1},
                                     "payload_length": 100}, bytes(10)), close=True),
    "a payload of 2^40 bytes": sends(frame({"type": "audio-chunk", "payload_length": 2**40})),
}


@pytest.mark.parametrize("script", BAD.values(), ids=BAD.keys())
def test_a_bad_event_drops_the_connection_and_the_room_is_heard_again(script: Script) -> None:
    async def body() -> Served:
        async with serving([script, good]) as served:
            async with asyncio.timeout(10):
                await served.satellite.reconnected.wait()
                while not served.ear.heard:
                    await asyncio.sleep(0.01)
            return served

    served = asyncio.run(body())
    assert served.satellite.first_events[:2] == ["run-satellite", "run-satellite"]
    assert served.ear.heard == [3200]  # only the good chunk, after the reconnection
    states = served.bus.states
    dropped = [(s, d) for s, d in states if s == "degraded" and "trying again" in d]
    assert dropped, states
    assert dropped[0][1].startswith(("kitchen dropped (", "kitchen lost (")), dropped
    assert "trying again in" in dropped[0][1]
    assert states[-1] == ("ready", "kitchen listening")


def test_a_declared_flood_is_refused_before_it_is_read() -> None:
    accepted: list[int] = []

    async def flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(frame({"type": "audio-chunk", "payload_length": 2**40}))
        sent, block = 0, bytes(MB)
        try:
            while sent < 256 * MB:
                writer.write(block)
                await writer.drain()
                sent += MB
        finally:
            accepted.append(sent)

    async def body() -> tuple[int, int]:
        before = rss()
        async with serving([flood, good]) as served:
            async with asyncio.timeout(30):
                await served.satellite.reconnected.wait()
        return before, rss()

    before, after = asyncio.run(body())
    assert accepted and accepted[0] < 16 * MB, f"the link took {accepted[0] / MB:.0f} MB"
    assert after - before < 32 * MB, f"grew {(after - before) / MB:.0f} MB"


def rss() -> int:
    with open(f"/proc/{os.getpid()}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_the_heartbeat_and_doctor_say_a_dropped_satellite_is_not_connected() -> None:
    async def body() -> Served:
        async with serving([sends(b"[1,2,3]\n")]) as served:  # every time: never back
            async with asyncio.timeout(10):
                while served.satellite.connections < 3:
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            assert not served.task.done()
            return served

    served = asyncio.run(body())
    state, detail = served.bus.states[-1]
    assert state == "degraded"
    assert detail.startswith("kitchen dropped (a header that is a JSON array"), detail
    assert detail.endswith(" s") and "trying again in" in detail
    beat = Heartbeat(service="satellites", pid=1, state=state, version="1", ts=999.0,
                     detail=detail)
    [check] = [c for c in heartbeat_checks({"satellites": beat}, now=1000.0)
               if c.name == "service satellites"]
    assert check.status == "WARN" and "kitchen dropped (" in check.detail
    assert "[satellite.NAME]" in check.fix and "wyoming-satellite" in check.fix


# -- wake = "ours": our wake word whatever the satellite claims ---------------------------


async def claims_its_own_word(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Says it heard its own wake word (run-pipeline from asr), then streams."""
    await async_write_event(RunPipeline(start_stage=PipelineStage.ASR,
                                        end_stage=PipelineStage.TTS).event(), writer)
    await async_write_event(GOOD_CHUNK.event(), writer)
    await reader.read()


@pytest.mark.parametrize(("wake", "needs_our_word"), [(True, False), (False, False),
                                                       ("ours", True)])
def test_a_claimed_wake_word_is_believed_unless_ours_is_required(
    wake: bool | str, needs_our_word: bool
) -> None:
    async def body() -> Ear:
        async with serving([claims_its_own_word], wake=wake) as served:
            async with asyncio.timeout(10):
                while not served.ear.heard:
                    await asyncio.sleep(0.01)
            return served.ear

    ear = asyncio.run(body())
    assert ear.expected[-1] is needs_our_word


def test_wake_ours_is_a_setting_and_other_words_are_refused() -> None:
    assert SatelliteConfig(uri="tcp://h:1", wake="ours").wake == "ours"
    for wrong in ("yes", 1, "OURS"):
        with pytest.raises(ValueError, match="(?i)true, false or 'ours'"):
            SatelliteConfig(uri="tcp://h:1", wake=wrong)


# -- one reader for both, and no service imports another ----------------------------------


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_satellites_and_the_wyoming_server_share_one_reader_and_import_not_each_other() -> None:
    satellites = set().union(*(imports(p) for p in (ROOT / "services/satellites").glob("*.py")))
    wyoming = set().union(*(imports(p) for p in (ROOT / "services/wyoming").glob("*.py")))
    assert not {m for m in satellites if m.startswith("services.wyoming.")}, satellites
    assert not {m for m in wyoming if m.startswith(("services.satellites", "services.brain.peers"))}
    assert "network.peers" in imports(ROOT / "services/wyoming/service.py")  # the brain's rule
    assert "network.wyoming_wire" in imports(ROOT / "services/satellites/link.py")
    assert "network.wyoming_wire" in imports(ROOT / "services/wyoming/handler.py")
