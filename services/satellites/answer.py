"""One turn's answer, spoken into a satellite's speaker as the dialogue writes it.

Each sentence goes to the speaker (``tts.synthesize``) the moment it is complete,
and its audio to the satellite chunk by chunk, at the satellite's own volume, so
the room hears the first sentence while the model still writes the rest. A
failed turn is answered with its apology, in the same voice, in the same room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.tts import Synthesize

from bus.messages import Reply, TextPiece
from services.base.phrases import cannot_go
from speaking.sentences import SentenceSplitter
from speaking.volume import Volume

if TYPE_CHECKING:  # the service builds the bridge and hands it here: no cycle at run time
    from services.satellites.service import SatelliteBridge

log = logging.getLogger(__name__)

Send = Callable[[Event], Awaitable[None]]


@dataclass
class Spoken:
    """What went to the satellite: the whole text, and seconds of audio."""

    text: str
    seconds: float
    reply: Reply | None


class Answer:
    def __init__(self, bridge: SatelliteBridge, send: Send, site: str, turn: str,
                 lang: str, voice: str, volume: Volume) -> None:
        self.bridge = bridge
        self.send = send
        self.site = site
        self.turn = turn
        self.lang = lang
        self.voice = voice
        """The ``[voice.*]`` key that speaks ``lang``."""
        self.volume = volume
        self.rate = 0
        self.samples = 0
        self.said: list[str] = []
        self.sentences: asyncio.Queue[str | None] = asyncio.Queue()
        self.speaking = asyncio.ensure_future(self._speak())

    async def answer(self, text: str) -> Spoken:
        """Ask the dialogue ``text``; speak its answer as it streams, then its end."""
        splitter = SentenceSplitter()
        streamed, round_number, reply = False, 0, None
        async with contextlib.aclosing(
            self.bridge.ask(self.site, text, self.lang, self.turn)
        ) as answers:
            async for piece in answers:
                if isinstance(piece, TextPiece):
                    if piece.round != round_number:  # the reply joins rounds with a space
                        splitter.feed(" ")
                        round_number = piece.round
                    streamed = streamed or bool(piece.text.strip())
                    self.say(*splitter.feed(piece.text))
                else:
                    reply = piece
        self.say(splitter.flush())
        assert reply is not None
        if reply.error or not streamed:  # an apology, or an answer that was not streamed
            self.say(reply.text)
        self.say(self._controls(reply))
        return await self.finish(reply)

    def say(self, *sentences: str) -> None:
        for sentence in sentences:
            if sentence.strip():
                self.sentences.put_nowait(sentence)
                self.said.append(sentence)

    async def finish(self, reply: Reply | None = None) -> Spoken:
        """Wait for the audio of everything said, then end it."""
        self.sentences.put_nowait(None)
        try:
            await self.speaking
        finally:
            if self.rate:
                await self.send(AudioStop().event())
        text = " ".join(self.said)
        if text:
            await self.send(Synthesize(text=text).event())  # the satellite's synthesize hook
        return Spoken(text, self.samples / self.rate if self.rate else 0.0, reply)

    def cancel(self) -> None:
        self.speaking.cancel()

    def _controls(self, reply: Reply) -> str:
        """Apply the turn's volume steps to this satellite; the phrase for a step that went
        past a limit (the model cannot know the volume), else ""."""
        override = ""
        for action in reply.control:
            direction = action.get("direction") if isinstance(action, dict) else None
            if not isinstance(action, dict) or action.get("type") != "adjust_volume" \
                    or direction not in ("up", "down"):
                log.warning("%s: ignoring a control action %r", self.site, action)
            elif not self.volume.step(direction):
                override = cannot_go(direction, self.lang)
        return override

    async def _speak(self) -> None:
        while (sentence := await self.sentences.get()) is not None:
            async with contextlib.aclosing(
                self.bridge.synthesize(sentence, self.voice, self.turn, self.site)
            ) as audio:
                async for piece in audio:
                    if not self.rate:
                        self.rate = piece.rate
                        await self.send(AudioStart(rate=piece.rate, width=2, channels=1).event())
                    if piece.pcm:
                        self.samples += len(piece.pcm) // 2
                        pcm = louder(piece.pcm, self.volume.value)
                        await self.send(AudioChunk(rate=piece.rate, width=2, channels=1,
                                                   audio=pcm).event())


def louder(pcm: bytes, factor: float) -> bytes:
    """PCM16 scaled by ``factor`` (clipped), as the local speaker scales its own."""
    if factor == 1.0:
        return pcm
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) * factor
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()
