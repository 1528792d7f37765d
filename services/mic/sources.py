"""Replayed files as a mic: blocks of 16 kHz mono PCM16 with the time they stand for."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from hearing.convert import decode_file
from hearing.vad import FRAME, RATE

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Block:
    pcm: bytes
    """16 kHz mono PCM16 little-endian."""
    end: float
    """Epoch time at which the sample just after this block was (or would be) captured."""
    fresh: bool = False
    """First block of a newly opened stream: unrelated to the audio before it."""


def _frames(path: Path, tail: float) -> Iterator[bytes]:
    pending = bytearray()
    for chunk in decode_file(path):
        pending += chunk
        while len(pending) >= 2 * FRAME:
            yield bytes(pending[: 2 * FRAME])
            del pending[: 2 * FRAME]
    pending += bytes(2 * round(tail * RATE))
    for at in range(0, len(pending), 2 * FRAME):
        yield bytes(pending[at : at + 2 * FRAME])


async def replay(paths: Sequence[Path], realtime: bool, tail: float) -> AsyncIterator[Block]:
    """The files one after the other, each followed by ``tail`` seconds of silence so its
    last utterance ends; paced in real time, or as fast as possible with the wall-clock
    times they would have had."""
    start = time.time()
    position = 0
    for path in paths:
        log.info("replaying %s", path)
        fresh = True
        for pcm in _frames(path, tail):
            position += len(pcm) // 2
            end = start + position / RATE
            # Pacing to the clock is the point of a real-time replay; otherwise yield to
            # the loop so that bus messages are handled between blocks.
            await asyncio.sleep(max(0.0, end - time.time()) if realtime else 0)
            yield Block(pcm, end, fresh)
            fresh = False
