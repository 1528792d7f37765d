"""Wyoming events off the wire, within limits: the one reader the Wyoming server and the
satellites share.

A Wyoming frame is a JSON header line, then ``data_length`` bytes of JSON data and
``payload_length`` bytes of payload (audio). The wyoming package's own reader believes
every length it is told and reads it whole: one header declaring a payload of 2^40
bytes made the server buffer all that followed (512 MiB sent, 1.12 GB resident). Here
the header line and both lengths are capped before a byte of them is read, the rest of a
frame must come within a deadline of its first byte, and a frame that cannot be read
(not JSON, a length that is not a count) ends the connection with an ``error`` event,
since what follows it cannot be told apart any more. A frame that was read whole but
says something malformed (no type, a width of 7, an audio chunk without a rate) is
refused alone: :func:`check` raises for it, and the connection goes on.

Audio is checked against what a microphone sends before any conversion: a chunk
claiming a rate of 1 Hz was resampled 16,000-fold (75 to 559 MB, the event loop
blocked for 2.1 s) before the size check after conversion refused it.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from wyoming.event import Event
from wyoming.pipeline import PipelineStage

MAX_LINE = 64 * 1024
"""Bytes of a header line. Ours are under 120 (type, version, two lengths); a peer of
wyoming before 1.1 writes its data into the line: still under this, at the size of
:data:`MAX_DATA`'s largest legitimate use, which is a fraction of it. (It is also
asyncio's own default, so the reading stream's buffer stays as it always was.)"""
MAX_DATA = 256 * 1024
"""Bytes of a frame's JSON data. The largest we take is a ``synthesize`` of 10,000
characters (``text_stream.MAX_TEXT``), at most 60 KB even with every character escaped
as ``\\uXXXX``; the largest a satellite sends (``run-pipeline``, ``info``) is a few KB."""
MAX_PAYLOAD = 1024 * 1024
"""Bytes of a frame's payload. The largest legitimate event is an audio chunk: clients
send 20-100 ms at a time (wyoming-satellite 1,024 samples, 2 KiB of 16 kHz mono; Home
Assistant its pipeline's 10-30 ms), at most 20 KB at the highest format we take (48 kHz
stereo). 1 MiB is 50 times that: 5.4 s of 48 kHz stereo, 32 s of 16 kHz mono."""
FRAME_TIMEOUT = 10.0
"""Seconds the rest of a frame may take after its first byte (a header line, a
megabyte of payload: milliseconds on any network Home Assistant and a satellite share);
as long as the brain's ``[brain] client_timeout`` for a request's head."""
MIN_RATE, MAX_RATE = 8000, 48000
"""The sample rates microphones send, from telephone quality to studio."""
WIDTH = 2
"""16-bit samples: what wyoming-satellite, Home Assistant and every Wyoming mic send."""
CHANNELS = (1, 2)


class BadFrame(Exception):
    """A frame we refuse, answered with an ``error`` event of ``code``; ``fatal`` when the
    connection cannot go on (the next frame's start is lost, or a limit was passed)."""

    def __init__(self, text: str, code: str, *, fatal: bool = False) -> None:
        super().__init__(text)
        self.code = code
        self.fatal = fatal


class EventReader:
    """Reads one peer's frames from ``reader``, within the limits above.

    The stream should be opened with ``limit=MAX_LINE`` (``asyncio.start_server`` and
    ``open_connection`` take it): a header line is read with ``readuntil``, which stops
    at the stream's limit.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.in_frame = False
        """Between a frame's first byte and its last."""
        self.last_active = time.monotonic()
        """When the last frame ended (or the connection opened)."""

    async def read(self, idle: float | None = None,
                   frame_timeout: float = FRAME_TIMEOUT) -> Event | None:
        """The next event, or None when the peer closed between frames. ``idle``: seconds
        to wait for a frame's first byte (None: without end). Raises :class:`BadFrame`."""
        try:
            async with asyncio.timeout(idle):
                first = await self.reader.read(1)
        except TimeoutError:
            raise BadFrame(f"nothing received for {idle:g} s", "timeout", fatal=True) from None
        if not first:
            return None
        self.in_frame = True
        try:
            async with asyncio.timeout(frame_timeout):
                return await self._rest(first)
        except TimeoutError:
            raise BadFrame(f"a frame not complete {frame_timeout:g} s after its first byte",
                           "timeout", fatal=True) from None
        except asyncio.IncompleteReadError:
            raise BadFrame("the connection closed in the middle of a frame", "cut-off",
                           fatal=True) from None
        except asyncio.LimitOverrunError:
            raise BadFrame(f"a header line longer than {MAX_LINE} bytes", "too-big",
                           fatal=True) from None
        finally:
            self.in_frame = False
            self.last_active = time.monotonic()

    async def _rest(self, first: bytes) -> Event:
        line = first if first == b"\n" else first + await self.reader.readuntil(b"\n")
        if len(line) > MAX_LINE + 1:  # a stream opened with a larger limit
            raise BadFrame(f"a header line longer than {MAX_LINE} bytes", "too-big", fatal=True)
        try:
            header = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past the stack
            raise BadFrame("a header line that is not JSON", "bad-event", fatal=True) from None
        if not isinstance(header, dict):
            raise BadFrame(f"a header that is a JSON {_kind(header)}, not an object",
                           "bad-event", fatal=True)
        data_length = _length(header, "data_length", MAX_DATA)
        payload_length = _length(header, "payload_length", MAX_PAYLOAD)
        # The whole frame is read before its content is judged: a bad one is refused
        # alone, and the next frame starts where it should.
        data_bytes = await self.reader.readexactly(data_length) if data_length else b""
        payload = await self.reader.readexactly(payload_length) if payload_length else None
        event_type = header.get("type")
        if not isinstance(event_type, str) or not event_type:
            raise BadFrame("a frame without a type", "bad-event")
        data = header.get("data")
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise BadFrame(f"{event_type}: data that is a JSON {_kind(data)}, not an object",
                           "bad-event")
        if data_bytes:
            try:
                more = json.loads(data_bytes)
            except (ValueError, RecursionError):
                raise BadFrame(f"{event_type}: a data block that is not JSON",
                               "bad-event") from None
            if not isinstance(more, dict):
                raise BadFrame(f"{event_type}: a data block that is a JSON {_kind(more)}, "
                               "not an object", "bad-event")
            data = {**data, **more}
        return Event(type=event_type, data=data, payload=payload)


def _length(header: dict[str, Any], key: str, limit: int) -> int:
    value = header.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadFrame(f"a {key} of {_short(value)}, not a count of bytes", "bad-event",
                       fatal=True)
    if value > limit:
        raise BadFrame(f"a {key} of {value} bytes, at most {limit}", "too-big", fatal=True)
    return value


# -- what each event we read must carry ------------------------------------------------

Fields = dict[str, tuple[tuple[type, ...], bool]]
"""Field: (the JSON types it may have, whether it is required). Absent and null are the
same for a field that is not required."""
NUMBER = (int, float)
AUDIO: Fields = {"rate": ((int,), True), "width": ((int,), True), "channels": ((int,), True),
                 "timestamp": (NUMBER, False)}
VOICE: Fields = {"name": ((str,), False), "language": ((str,), False),
                 "speaker": ((str,), False)}
SHAPES: dict[str, Fields] = {
    "audio-start": AUDIO,
    "audio-chunk": AUDIO,
    "audio-stop": {"timestamp": (NUMBER, False)},
    "synthesize": {"text": ((str,), True), "voice": ((dict,), False)},
    "synthesize-start": {"voice": ((dict,), False)},
    "synthesize-chunk": {"text": ((str,), True)},
    "run-pipeline": {"start_stage": ((str,), True), "end_stage": ((str,), True),
                     "restart_on_end": ((bool,), False)},
}
"""The events the server and the satellites read, with what the wyoming package's
``from_event`` would index, iterate or convert; others are passed on unread."""
STAGES = frozenset(stage.value for stage in PipelineStage)


def check(event: Event) -> Event:
    """``event`` if the wyoming package can read it and its audio is a microphone's;
    raises :class:`BadFrame` (not fatal) saying what is wrong."""
    fields = SHAPES.get(event.type)
    if fields is None:
        return event
    _check_fields(event.type, event.data, fields)
    if event.type in ("synthesize", "synthesize-start") and event.data.get("voice"):
        _check_fields(f"{event.type} voice", event.data["voice"], VOICE)
    if event.type == "run-pipeline":
        for key in ("start_stage", "end_stage"):
            if event.data[key] not in STAGES:
                raise BadFrame(f"run-pipeline: no stage {_short(event.data[key])} "
                               f"(one of {', '.join(sorted(STAGES))})", "bad-event")
    if event.type in ("audio-start", "audio-chunk"):
        data = event.data
        check_format(data["rate"], data["width"], data["channels"],
                     len(event.payload or b"") if event.type == "audio-chunk" else 0)
    return event


def check_format(rate: int, width: int, channels: int, size: int = 0) -> None:
    """Refuse audio no microphone sends, before anything converts it."""
    if not MIN_RATE <= rate <= MAX_RATE:
        raise BadFrame(f"audio at {rate} Hz: {MIN_RATE}-{MAX_RATE} Hz is taken", "bad-audio")
    if width != WIDTH:
        raise BadFrame(f"audio {width} bytes wide: {WIDTH} (16-bit) is taken", "bad-audio")
    if channels not in CHANNELS:
        raise BadFrame(f"audio of {channels} channels: 1 or 2 are taken", "bad-audio")
    if size % (width * channels):
        raise BadFrame(f"{size} bytes of audio: not whole samples of {width * channels} bytes",
                       "bad-audio")


def _check_fields(what: str, data: dict[str, Any], fields: Fields) -> None:
    for key, (types, required) in fields.items():
        value = data.get(key)
        if value is None:
            if required:
                raise BadFrame(f"{what} without {key!r}", "bad-event")
            data.pop(key, None)  # null as absent: the package's readers want one of them
            continue
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            wanted = " or ".join(_JSON_NAMES.get(t, t.__name__) for t in types)
            raise BadFrame(f"{what}: {key!r} is a JSON {_kind(value)}, not {wanted}",
                           "bad-event")


_JSON_NAMES = {int: "an integer", float: "a number", str: "a string", dict: "an object",
               bool: "true or false"}


def _kind(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
            float: "number"}.get(type(value), "null")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
