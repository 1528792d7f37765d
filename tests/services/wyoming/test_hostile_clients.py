"""Hostile Wyoming clients against the real server process (issue 30).

Real sockets on 127.0.0.1 against ``python -m services.wyoming`` on a real broker
(no STT or speaker: nothing here gets as far as them). Frames are written by the
wyoming package's own ``write_event`` where they are well formed, by hand where
they are not, and the answers read with its ``read_event``. The server's resident
size is read from ``/proc`` while each attack runs.
"""

from __future__ import annotations

import io
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from wyoming.audio import AudioChunk, AudioStart
from wyoming.event import Event, read_event, write_event
from wyoming.info import Describe

from bus.client import Bus
from tests.helpers.busrun import with_buses
from tests.helpers.other_user import as_other_user
from tests.helpers.ports import free_port
from tests.helpers.processes import Process
from tests.helpers.service_stack import Stack, wait_state

MB = 1024 * 1024
WAIT = 30.0
"""How long a test waits for an answer or for the server to close a socket."""


@dataclass
class Server:
    stack: Stack
    process: Process
    port: int

    def rss(self) -> int:
        """The server's resident size now, in bytes."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")

    def log(self) -> str:
        return self.process.output()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    port = free_port()
    stack = Stack(f"[wyoming]\nenabled = true\nport = {port}\n")
    try:
        process = stack.start("services.wyoming")

        async def ready(bus: Bus) -> None:
            await wait_state(bus, "wyoming", "ready", timeout=120)

        with_buses(stack.endpoints, ["test"], ready)
        yield Server(stack, process, port)
    finally:
        stack.close()


class Peak:
    """The server's largest resident size while the ``with`` block runs (sampled every
    10 ms), beside its size before."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.before = server.rss()
        self.peak = self.before
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(0.01):
            self.peak = max(self.peak, self.server.rss())

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, self.server.rss())

    @property
    def growth(self) -> int:
        return self.peak - self.before


def wire(*events: Event) -> bytes:
    """``events`` as the wyoming package writes them."""
    out = io.BytesIO()
    for event in events:
        write_event(event, out)
    return out.getvalue()


def raw(header: object, data: bytes = b"", payload: bytes = b"") -> bytes:
    """A frame written by hand: ``header`` as a JSON line (bytes as they are)."""
    line = header if isinstance(header, bytes) else json.dumps(header).encode()
    return line + b"\n" + data + payload


def connect(server: Server, sent: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    sock.sendall(sent)
    return sock


def answers(sock: socket.socket, until: str | None = None) -> list[Event]:
    """Events the server sends: up to one of type ``until``, else until it closes."""
    events = []
    reader = sock.makefile("rb")
    try:
        while (event := read_event(reader)) is not None:
            events.append(event)
            if event.type == until:
                break
    except (ConnectionError, TimeoutError):
        pass
    return events


def closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (reading what it sent before)."""
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return True


def still_serves(server: Server) -> None:
    with connect(server, wire(Describe().event())) as sock:
        assert [e.type for e in answers(sock, until="info")][-1:] == ["info"]


def flood(sock: socket.socket, total: int) -> int:
    """Send ``total`` bytes of zeros; the bytes sent when the server stopped taking them."""
    block, sent = bytes(MB), 0
    try:
        while sent < total:
            sock.sendall(block)
            sent += len(block)
    except OSError:
        pass
    return sent


# -- finding 1: a declared length is capped before anything is read -------------------


@pytest.mark.parametrize(
    "header",
    [
        {"type": "audio-chunk", "data": {"rate": 16000, "width": 2, "channels": 1},
         "payload_length": 2**40},
        {"type": "synthesize", "data_length": 2**40},
        None,  # a header line that never ends
    ],
    ids=["payload_length", "data_length", "header line"],
)
def test_a_frame_past_the_caps_is_refused_before_it_is_read(
    server: Server, header: dict[str, object] | None
) -> None:
    with connect(server) as sock, Peak(server) as peak:
        if header is not None:
            sock.sendall(json.dumps(header).encode() + b"\n")
        else:
            sock.sendall(b'{"type": "synthesize", "data": {"text": "')
        sent = flood(sock, 256 * MB)
        got = answers(sock)
    assert peak.growth < 48 * MB, f"grew {peak.growth / MB:.0f} MB for {sent / MB:.0f} MB sent"
    assert sent < 64 * MB, f"the server took {sent / MB:.0f} MB"
    assert [e.type for e in got] == ["error"], got
    assert got[0].data["code"] == "too-big"
    print(f"\n{header and list(header)[-1]}: {peak.before / MB:.0f} -> {peak.peak / MB:.0f} MB"
          f" resident, {sent / MB:.0f} MB accepted")
    still_serves(server)


# -- finding 2: audio formats are checked before any conversion ---------------------------


START = AudioStart(rate=16000, width=2, channels=1).event()


@pytest.mark.parametrize(
    ("fmt", "size"),
    [
        ({"rate": 1, "width": 2, "channels": 1}, 16 * 1024),
        ({"rate": 7999, "width": 2, "channels": 1}, 3200),
        ({"rate": 48001, "width": 2, "channels": 1}, 3200),
        ({"rate": 16000, "width": 7, "channels": 1}, 7 * 100),
        ({"rate": 16000, "width": 4, "channels": 1}, 3200),
        ({"rate": 16000, "width": 2, "channels": 3}, 1200),
        ({"rate": 16000, "width": 2, "channels": 0}, 3200),
    ],
)
def test_an_audio_format_no_microphone_sends_is_refused_before_conversion(
    server: Server, fmt: dict[str, int], size: int
) -> None:
    chunk = Event(type="audio-chunk", data=fmt, payload=bytes(size))
    with connect(server, wire(START)) as sock, Peak(server) as peak:
        started = time.monotonic()
        sock.sendall(wire(chunk))
        got = answers(sock, until="error")
        took = time.monotonic() - started
    assert [e.type for e in got] == ["error"], got
    assert got[0].data["code"] == "bad-audio", got[0].data
    assert took < 1.0, f"{took:.2f} s to refuse"
    assert peak.growth < 16 * MB, f"grew {peak.growth / MB:.0f} MB"
    print(f"\n{fmt}: {peak.before / MB:.0f} -> {peak.peak / MB:.0f} MB resident, "
          f"refused in {took * 1000:.0f} ms")


def test_the_formats_a_microphone_sends_are_taken(server: Server) -> None:
    for rate, channels in [(8000, 1), (16000, 1), (22050, 2), (44100, 1), (48000, 2)]:
        chunk = AudioChunk(rate=rate, width=2, channels=channels, audio=bytes(4 * channels * 100))
        describe = Describe().event()
        with connect(server, wire(START, chunk.event(), describe)) as sock:
            assert [e.type for e in answers(sock, until="info")] == ["info"], (rate, channels)


# -- finding 3: connections, audio held, idle and half-sent frames are bounded -------------


def test_connections_past_the_cap_close_the_longest_idle(server: Server) -> None:
    with ExitStack() as sockets:
        idle = [sockets.enter_context(connect(server)) for _ in range(40)]
        time.sleep(0.5)
        still_serves(server)
        assert closed(idle[0])  # the oldest made room
        for sock in idle:
            sock.setblocking(False)
        open_ones = 0
        for sock in idle:
            try:
                open_ones += sock.recv(1) != b""
            except BlockingIOError:
                open_ones += 1
            except ConnectionError:
                pass
        assert open_ones <= 16, f"{open_ones} idle connections kept"


def test_audio_held_by_many_connections_is_bounded(server: Server) -> None:
    second = bytes(32000)  # 1 s of 16 kHz mono PCM16
    held = wire(START, *[AudioChunk(rate=16000, width=2, channels=1, audio=second).event()
                         for _ in range(59)])
    with ExitStack() as sockets, Peak(server) as peak:
        for _ in range(100):
            sock = sockets.enter_context(connect(server))
            try:
                sock.sendall(held)
            except OSError:
                pass  # refused: the server is full
        time.sleep(1.0)
    print(f"\n100 connections x 59 s of audio: {peak.before / MB:.0f} -> "
          f"{peak.peak / MB:.0f} MB resident")
    assert peak.growth < 64 * MB, f"grew {peak.growth / MB:.0f} MB"
    still_serves(server)


def test_more_audio_than_a_connection_may_hold_is_refused(server: Server) -> None:
    minute = bytes(32000 * 61)
    chunk = AudioChunk(rate=16000, width=2, channels=1, audio=minute[: 32000 * 20]).event()
    with connect(server, wire(START, chunk, chunk, chunk, chunk)) as sock:
        got = answers(sock, until="error")
    assert [e.type for e in got] == ["error"], got
    assert got[0].data["code"] == "too-long"


# -- finding 4: another user of this machine is refused on loopback -----------------------


def as_user(name: str, port: int, sent: bytes) -> list[dict[str, object]]:
    """The events (type and data) the server answers ``sent`` with, on a connection made by
    a child process running as the user ``name``."""

    def connect_and_read() -> list[dict[str, object]]:
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
            sock.sendall(sent)
            return [{"type": e.type, "data": e.data} for e in answers(sock, until="info")]

    got: list[dict[str, object]] = as_other_user(name, connect_and_read)
    return got


@pytest.mark.skipif(os.getuid() != 0, reason="becoming another user needs root")
def test_another_user_is_refused_on_loopback_and_ours_is_served(server: Server) -> None:
    got = as_user("nobody", server.port, wire(Describe().event()))
    assert [e["type"] for e in got] == ["error"], got
    assert "another user (uid" in str(got[0]["data"])
    still_serves(server)


# -- finding 5: every malformed frame is answered with an error ---------------------------


def chunk_with(**data: object) -> bytes:
    return raw({"type": "audio-chunk", "data": data, "payload_length": 4}, payload=bytes(4))


OK_FMT = {"rate": 16000, "width": 2, "channels": 1}
MALFORMED = {
    "a JSON list": raw([1, 2, 3]),
    "a JSON string": raw("audio-chunk"),
    "not JSON": raw(b"hello there"),
    "an empty line": raw(b""),
    "not UTF-8": raw(b'{"type": "\xff\xfe"}'),
    "no type": raw({"data": {}}),
    "a number for a type": raw({"type": 5}),
    "a list for data": raw({"type": "describe", "data": [1]}),
    "a data block that is a list": raw({"type": "synthesize", "data_length": 5}, b"[1,2]"),
    "a data block that is not JSON": raw({"type": "synthesize", "data_length": 4}, b"{{{{"),
    "a negative data_length": raw({"type": "synthesize", "data_length": -1}),
    "a string payload_length": raw({"type": "audio-chunk", "payload_length": "12"}),
    "a fractional payload_length": raw({"type": "audio-chunk", "payload_length": 1.5}),
    "an infinite payload_length": raw(b'{"type": "audio-chunk", "payload_length": 1e400}'),
    "a chunk without a rate": chunk_with(width=2, channels=1),
    "a chunk of width 7": chunk_with(rate=16000, width=7, channels=1),
    "a chunk of 0 channels": chunk_with(rate=16000, width=2, channels=0),
    "a chunk with a string rate": chunk_with(rate="16000", width=2, channels=1),
    "a chunk with rate true": chunk_with(rate=True, width=2, channels=1),
    "a chunk of half a sample": raw({"type": "audio-chunk", "data": OK_FMT, "payload_length": 3},
                                    payload=b"abc"),
    "an audio-start of rate 1": raw({"type": "audio-start",
                                     "data": {"rate": 1, "width": 2, "channels": 1}}),
    "a synthesize without text": raw({"type": "synthesize", "data": {}}),
    "a synthesize of a number": raw({"type": "synthesize", "data": {"text": 5}}),
    "a voice that is a string": raw({"type": "synthesize", "data": {"text": "Hi", "voice": "en"}}),
    "a voice that is a list": raw({"type": "synthesize-start", "data": {"voice": [1]}}),
    "a voice name that is a number": raw({"type": "synthesize",
                                          "data": {"text": "Hi", "voice": {"name": 5}}}),
    "a synthesize-chunk of null": raw({"type": "synthesize-start"})
    + raw({"type": "synthesize-chunk", "data": {"text": None}}),
}


@pytest.mark.parametrize("frame", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_frame_is_answered_with_an_error(server: Server, frame: bytes) -> None:
    with connect(server, wire(START) + frame) as sock:
        got = answers(sock, until="error")
    assert [e.type for e in got] == ["error"], got
    assert got[0].data.get("text"), got[0].data
    assert "Traceback" not in server.log()
    still_serves(server)


def test_malformed_frames_are_logged_one_line_at_a_time_at_a_limited_rate(
    server: Server,
) -> None:
    bad = raw({"type": "synthesize-chunk", "data": {"text": 12345678}})
    said = "synthesize-chunk: 'text' is a JSON number, not a string"
    before = len(server.log().splitlines())
    with connect(server, bad * 50 + wire(Describe().event())) as sock:
        got = answers(sock, until="info")
        assert [e.type for e in got] == ["error"] * 50 + ["info"]
        assert {e.data["text"] for e in got[:-1]} == {said}
        time.sleep(10.5)  # the interval of bus.ratelimit: the next one is logged, and counts
        sock.sendall(bad)
        assert [e.type for e in answers(sock, until="error")] == ["error"]
    time.sleep(0.5)
    logged = [line for line in server.log().splitlines()[before:] if "refused" in line]
    assert 1 <= len(logged) <= 2, logged  # maybe the first of the 50, and the one after
    assert said in logged[-1] and "more like this suppressed" in logged[-1], logged
    assert "Traceback" not in server.log()
