"""One Wyoming client's connection: its events in, our answers out.

``transcribe`` (or ``detect``) then ``audio-start``/``audio-chunk``/``audio-stop``
is speech to text (or a wake word); ``synthesize`` is text to speech, and
``synthesize-start``/``-chunk``/``-stop`` the same with the text streaming in:
each sentence goes to the speaker the moment it is complete, so the client
hears the first one while the rest of the text is still being written. Bad
input is answered with an ``error`` event, and the connection goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from wyoming.asr import Transcribe
from wyoming.asr import Transcript as WyomingTranscript
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.error import Error as WyomingError
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.server import AsyncEventHandler
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)
from wyoming.wake import Detect, Detection, NotDetected

from services.dialogue.sentences import SentenceSplitter
from services.wyoming.bridge import RATE, BridgeError, WyomingBridge

log = logging.getLogger(__name__)

MAX_TEXT = 10_000
"""Characters of text one synthesis takes (a reply is a few hundred)."""
MAX_AUDIO_SECONDS = 120
"""Seconds of audio one transcription takes (its utterance must fit a bus message)."""


class WakeDetector(Protocol):
    """The mic's wake word detector (``services.mic.wake``), one per ``detect``."""

    model: str

    def hear(self, pcm: bytes) -> bool: ...


class ClientError(Exception):
    """Input we refuse: answered with an ``error`` event of this code."""

    def __init__(self, text: str, code: str) -> None:
        super().__init__(text)
        self.code = code


class WyomingHandler(AsyncEventHandler):
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        bridge: WyomingBridge,
        info: Info,
        voices: dict[str, list[str]],
        default_lang: str,
        wake: Callable[[], WakeDetector] | None,
    ) -> None:
        super().__init__(reader, writer)
        self.bridge = bridge
        self.info = info
        self.voices = voices
        self.default_lang = default_lang
        self.wake = wake
        self.converter = AudioChunkConverter(rate=RATE, width=2, channels=1)
        self.audio: bytearray | None = None
        """The audio since ``audio-start``; None outside one."""
        self.detector: WakeDetector | None = None
        """Listening for the wake word (after ``detect``) instead of transcribing."""
        self.detected = False
        self.stream: TextStream | None = None

    async def handle_event(self, event: Event) -> bool:
        try:
            await self._handle(event)
        except (ClientError, BridgeError) as exc:
            log.warning("wyoming: %s event refused: %s", event.type, exc)
            await self.write_event(WyomingError(text=str(exc), code=exc.code).event())
        return True

    async def _handle(self, event: Event) -> None:
        if Describe.is_type(event.type):
            await self.write_event(self.info.event())
        elif Transcribe.is_type(event.type):
            self.detector = None
        elif Detect.is_type(event.type):
            if self.wake is None:
                raise ClientError("no wake word is installed here", "no-wake-word")
            self.detector = self.wake()
        elif AudioStart.is_type(event.type):
            self.audio, self.detected = bytearray(), False
        elif AudioChunk.is_type(event.type):
            await self._chunk(AudioChunk.from_event(event))
        elif AudioStop.is_type(event.type):
            await self._audio_stop()
        elif Synthesize.is_type(event.type):
            if self.stream is None:  # while streaming, the same text comes again: ignored
                synthesize = Synthesize.from_event(event)
                await self._speak_whole(synthesize.text, self._lang(synthesize.voice))
        elif SynthesizeStart.is_type(event.type):
            start = SynthesizeStart.from_event(event)
            self.stream = TextStream(self, self._lang(start.voice))
        elif SynthesizeChunk.is_type(event.type):
            if self.stream is None:
                raise ClientError("synthesize-chunk before synthesize-start", "bad-order")
            self.stream.add(SynthesizeChunk.from_event(event).text)
        elif SynthesizeStop.is_type(event.type):
            if self.stream is None:
                raise ClientError("synthesize-stop before synthesize-start", "bad-order")
            stream, self.stream = self.stream, None
            await stream.finish()
            await self.write_event(SynthesizeStopped().event())
        else:
            log.debug("wyoming: %s event ignored", event.type)

    # -- audio in --------------------------------------------------------------------

    async def _chunk(self, chunk: AudioChunk) -> None:
        if self.audio is None:
            raise ClientError("audio-chunk before audio-start", "bad-order")
        try:
            pcm = self.converter.convert(chunk).audio
        except Exception as exc:  # a width or channel count the converter cannot read
            raise ClientError(f"unreadable audio: {exc}", "bad-audio") from None
        if self.detector is not None:
            if not self.detected and self.detector.hear(pcm):
                self.detected = True
                await self.write_event(Detection(name=self.detector.model,
                                                 timestamp=chunk.timestamp).event())
            return
        if len(self.audio) + len(pcm) > MAX_AUDIO_SECONDS * RATE * 2:
            self.audio = None
            raise ClientError(f"more than {MAX_AUDIO_SECONDS} s of audio", "too-long")
        self.audio += pcm

    async def _audio_stop(self) -> None:
        if self.audio is None:
            raise ClientError("audio-stop before audio-start", "bad-order")
        pcm, self.audio = bytes(self.audio), None
        if self.detector is not None:
            if not self.detected:
                await self.write_event(NotDetected().event())
            return
        transcript = await self.bridge.transcribe(pcm) if pcm else None
        text, lang = ("", None) if transcript is None else (transcript.text, transcript.lang)
        await self.write_event(WyomingTranscript(text=text, language=lang).event())

    # -- audio out -------------------------------------------------------------------

    def _lang(self, voice: SynthesizeVoice | None) -> str:
        """The ``[voice.*]`` key to speak with: the voice named, else the language's."""
        if voice is not None and voice.name:
            if voice.name not in self.voices:
                raise ClientError(f"unknown voice {voice.name!r}; known: "
                                  f"{', '.join(self.voices)}", "unknown-voice")
            return voice.name
        if voice is not None and voice.language:
            wanted = voice.language.lower().replace("_", "-")
            for key, langs in self.voices.items():
                if wanted in langs or wanted.split("-")[0] in langs:
                    return key
        return self.default_lang

    async def _speak_whole(self, text: str, lang: str) -> None:
        _check_length(len(text))
        out = AudioOut(self)
        await out.speak(text, lang)
        await out.stop()

    async def disconnect(self) -> None:
        if self.stream is not None:
            self.stream.cancel()


class AudioOut:
    """Our audio to the client: ``audio-start`` at the first chunk (which brings the rate),
    the chunks, ``audio-stop``."""

    def __init__(self, handler: WyomingHandler) -> None:
        self.handler = handler
        self.rate = 0

    async def speak(self, text: str, lang: str) -> None:
        async with contextlib.aclosing(self.handler.bridge.synthesize(text, lang)) as audio:
            async for piece in audio:
                if not self.rate:
                    self.rate = piece.rate
                    await self.handler.write_event(
                        AudioStart(rate=piece.rate, width=2, channels=1).event())
                if piece.pcm:
                    await self.handler.write_event(
                        AudioChunk(rate=piece.rate, width=2, channels=1, audio=piece.pcm).event())

    async def stop(self) -> None:
        if self.rate:
            await self.handler.write_event(AudioStop().event())


class TextStream:
    """Streamed text to speech: each complete sentence is spoken at once, in order."""

    def __init__(self, handler: WyomingHandler, lang: str) -> None:
        self.lang = lang
        self.out = AudioOut(handler)
        self.splitter = SentenceSplitter()
        self.length = 0
        self.sentences: asyncio.Queue[str | None] = asyncio.Queue()
        self.speaking = asyncio.ensure_future(self._speak())

    def add(self, text: str) -> None:
        self.length += len(text)
        _check_length(self.length)
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


def _check_length(length: int) -> None:
    if length > MAX_TEXT:
        raise ClientError(f"{length} characters of text, at most {MAX_TEXT}", "too-long")
