"""Our speech to a Wyoming client: ``audio-start`` at the first chunk (which brings the
rate), the chunks as the speaker makes them, ``audio-stop`` at the end."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event

if TYPE_CHECKING:  # the service builds the bridge and hands it here: no cycle at run time
    from services.wyoming.service import WyomingBridge


class AudioOut:
    """One client's audio stream: several sentences may go into it, one ``audio-start``."""

    def __init__(self, bridge: WyomingBridge,
                 write_event: Callable[[Event], Awaitable[None]]) -> None:
        self.bridge = bridge
        self.write_event = write_event
        self.rate = 0

    async def speak(self, text: str, lang: str) -> None:
        async with contextlib.aclosing(self.bridge.synthesize(text, lang)) as audio:
            async for piece in audio:
                if not self.rate:
                    self.rate = piece.rate
                    await self.write_event(
                        AudioStart(rate=piece.rate, width=2, channels=1).event())
                if piece.pcm:
                    await self.write_event(
                        AudioChunk(rate=piece.rate, width=2, channels=1, audio=piece.pcm).event())

    async def stop(self) -> None:
        if self.rate:
            await self.write_event(AudioStop().event())
