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

from services.wyoming.audio_out import AudioOut
from services.wyoming.bridge import RATE, BridgeError, WyomingBridge
from services.wyoming.errors import ClientError
from services.wyoming.text_stream import TextStream, check_length

log = logging.getLogger(__name__)

MAX_AUDIO_SECONDS = 120
"""Seconds of audio one transcription takes (its utterance must fit a bus message)."""


class WakeDetector(Protocol):
    """The mic's wake word detector (``services.mic.wake``), one per ``detect``."""

    model: str

    def hear(self, pcm: bytes) -> bool: ...


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
            # `detect` opens the stream: wyoming-satellite sends its mic's chunks after it
            # with no audio-start, and `detect` again on the same connection after each turn.
            self.detector, self.detected, self.audio = self.wake(), False, bytearray()
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
            self.stream = TextStream(self._audio_out(), self._lang(start.voice))
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
        check_length(len(text))
        out = self._audio_out()
        await out.speak(text, lang)
        await out.stop()

    def _audio_out(self) -> AudioOut:
        return AudioOut(self.bridge, self.write_event)

    async def disconnect(self) -> None:
        if self.stream is not None:
            self.stream.cancel()
