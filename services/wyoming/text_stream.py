"""Streamed text to speech (``synthesize-start``/``-chunk``/``-stop``): each sentence
goes to the speaker the moment it is complete, so the client hears the first one
while the rest of the text is still being written."""

from __future__ import annotations

import asyncio

from services.wyoming.audio_out import AudioOut
from services.wyoming.errors import ClientError
from speaking.sentences import SentenceSplitter

MAX_TEXT = 10_000
"""Characters of text one synthesis takes (a reply is a few hundred)."""


class TextStream:
    """Streamed text to speech: each complete sentence is spoken at once, in order."""

    def __init__(self, out: AudioOut, lang: str) -> None:
        self.lang = lang
        self.out = out
        self.splitter = SentenceSplitter()
        self.length = 0
        self.sentences: asyncio.Queue[str | None] = asyncio.Queue()
        self.speaking = asyncio.ensure_future(self._speak())

    def add(self, text: str) -> None:
        self.length += len(text)
        check_length(self.length)
        for sentence in self.splitter.feed(text):
            self.sentences.put_nowait(sentence)

    async def finish(self) -> None:
        """Speak the rest, wait for all of it, end the audio; a failure is raised here."""
        rest = self.splitter.flush()
        if rest.strip():
            self.sentences.put_nowait(rest)
        self.sentences.put_nowait(None)
        try:
            await self.speaking
        finally:
            await self.out.stop()

    def cancel(self) -> None:
        self.speaking.cancel()

    async def _speak(self) -> None:
        while (sentence := await self.sentences.get()) is not None:
            await self.out.speak(sentence, self.lang)


def check_length(length: int) -> None:
    if length > MAX_TEXT:
        raise ClientError(f"{length} characters of text, at most {MAX_TEXT}", "too-long")
