"""Capture from the configured card with sounddevice; reopen it with backoff when it fails.

The PortAudio callback only copies the bytes and the time onto the event
loop: an exception there would stop the stream silently. A card that
delivers nothing for ``STALL`` seconds is taken as gone (PortAudio has no
unplug event) and reopened after the device list is rescanned.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import sounddevice as sd

from bus.ratelimit import RateLimitedLog
from hearing.convert import ToSpeechFormat
from hearing.vad import RATE
from services.mic.monitor import SERVER_DEVICE, server_source
from services.mic.sources import Block

log = logging.getLogger(__name__)
overruns = RateLimitedLog(log, interval=30.0)

STALL = 2.0
"""Seconds without audio after which the stream is taken as dead."""
BACKOFF = (0.5, 30.0)
"""First and longest wait between attempts to reopen the card."""
QUEUE_BLOCKS = 200
"""Blocks (about 6 s) kept when the loop falls behind; the oldest go first."""


class CardError(Exception):
    """The card cannot be used; the message says why and what there is."""


def input_devices() -> list[tuple[int, str]]:
    """``(index, "name, host API")`` of every device with input channels."""
    apis = sd.query_hostapis()
    return [
        (index, f"{dev['name']}, {apis[dev['hostapi']]['name']}")
        for index, dev in enumerate(sd.query_devices())
        if dev["max_input_channels"] > 0
    ]


def find_card(card: str) -> int:
    """The input device whose name contains ``card`` (case-insensitive); an exact name wins.

    An empty ``card`` (the default) is the system's default input: on a desktop with
    PulseAudio or PipeWire, the source the user picked in the sound settings. A name
    that matches nothing stays an error rather than falling back to the default, so a
    typo is seen instead of silently recording from another mic.
    """
    devices = input_devices()
    if not card:
        return default_input(devices)
    wanted = card.lower()
    hits = [(i, name) for i, name in devices if wanted in name.lower()]
    exact = [(i, name) for i, name in hits if name.lower().split(", ")[0] == wanted]
    for found in (exact, hits):
        if len(found) == 1:
            return found[0][0]
    how = "more than one" if hits else "no"
    raise CardError(f"card = {card!r} matches {how} input device; {_listing(devices)}")


def default_input(devices: list[tuple[int, str]]) -> int:
    """PortAudio's default input device, or a CardError listing the inputs there are."""
    index = sd.default.device[0]  # PortAudio's own default while nobody overrides it
    if index not in dict(devices):  # -1 when the host has no input at all
        raise CardError(f"no default input device; {_listing(devices)}")
    return int(index)


def _listing(devices: list[tuple[int, str]]) -> str:
    lines = "\n".join(f"  {i}: {name}" for i, name in devices) or "  (none)"
    return f"input devices:\n{lines}"


def stream_format(device: int) -> tuple[int, int]:
    """The rate and channel count to open: 16 kHz mono when the device takes it."""
    info = sd.query_devices(device)
    native = int(info["default_samplerate"])
    most = int(info["max_input_channels"])
    for rate, channels in ((RATE, 1), (native, 1), (native, min(2, most)), (native, most)):
        try:
            sd.check_input_settings(device, channels=channels, samplerate=rate, dtype="int16")
            return rate, channels
        except (sd.PortAudioError, ValueError):
            continue
    raise CardError(f"{info['name']}: accepts none of 16 kHz or {native} Hz with 1-{most} channels")


class CardStream:
    """One open input stream, read block by block on the event loop: the card, or with
    ``source`` that source of the sound server (through the ALSA ``pulse`` device)."""

    def __init__(self, card: str, source: str = "") -> None:
        self.device = find_card(SERVER_DEVICE if source else card)
        self.name = sd.query_devices(self.device)["name"]
        rate, channels = stream_format(self.device)
        self.convert = ToSpeechFormat(rate, channels)
        self._loop = asyncio.get_running_loop()
        self._queue: collections.deque[tuple[bytes, float]] = collections.deque(maxlen=QUEUE_BLOCKS)
        self._arrived = asyncio.Event()
        with server_source(source):
            self._stream = sd.RawInputStream(
                device=self.device,
                samplerate=rate,
                channels=channels,
                dtype="int16",
                blocksize=round(rate * 0.032),
                callback=self._callback,
            )
        self.latency = float(self._stream.latency)  # type: ignore[arg-type]
        self._stream.start()
        which = source or (self.name if card else f"{self.name} (the system's default input)")
        log.info("mic: %s at %d Hz, %d channel(s)", which, rate, channels)

    def _callback(self, indata: Any, frames: int, when: Any, status: sd.CallbackFlags) -> None:
        self._loop.call_soon_threadsafe(self._put, bytes(indata), time.time(), bool(status))

    def _put(self, pcm: bytes, arrived: float, flagged: bool) -> None:
        if flagged or len(self._queue) == QUEUE_BLOCKS:
            overruns.warn("overrun", "mic: %s: audio was lost (overflow or a slow loop)", self.name)
        self._queue.append((pcm, arrived - self.latency))
        self._arrived.set()

    async def blocks(self) -> AsyncIterator[Block]:
        fresh = True
        while True:
            if not self._queue:
                self._arrived.clear()
                try:
                    # Not asyncio.wait_for: in Python 3.11 it swallows a cancellation that
                    # comes as the event is set, which here (a block every 32 ms) made the
                    # service ignore SIGTERM now and then.
                    async with asyncio.timeout(STALL):
                        await self._arrived.wait()
                except TimeoutError:
                    raise CardError(f"{self.name}: no audio for {STALL:g} s") from None
            pcm, end = self._queue.popleft()
            yield Block(self.convert(pcm), end, fresh)
            fresh = False

    def close(self) -> None:
        try:
            self._stream.abort()
            self._stream.close()
        except sd.PortAudioError as exc:
            log.debug("closing %s: %s", self.name, exc)


def rescan() -> None:
    """Reload PortAudio's device list (it is frozen at start-up)."""
    sd._terminate()
    sd._initialize()


async def capture(
    card: str, report: Callable[[str | None], None], source: str = ""
) -> AsyncIterator[Block]:
    """Blocks from the card (or the sound server's ``source``) for ever: a failure is
    reported (``report(reason)``), the stream reopened with backoff, and ``report(None)``
    called once it delivers again."""
    delay = BACKOFF[0]
    while True:
        stream: CardStream | None = None
        try:
            stream = CardStream(card, source)
            async for block in stream.blocks():
                if block.fresh:
                    report(None)
                    delay = BACKOFF[0]
                yield block
        except (CardError, sd.PortAudioError) as exc:
            log.error("mic: %s; trying again in %.1f s", exc, delay)
            report(str(exc))
        finally:
            if stream is not None:
                stream.close()
        await asyncio.sleep(delay)
        delay = min(delay * 2, BACKOFF[1])
        if not source:  # the server's device is always listed; a rescan closes every stream
            rescan()
