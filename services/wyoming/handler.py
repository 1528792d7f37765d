"""One Wyoming client's connection: its events in, our answers out.

``transcribe`` (or ``detect``) then ``audio-start``/``audio-chunk``/``audio-stop``
is speech to text (or a wake word); ``synthesize`` is text to speech, and
``synthesize-start``/``-chunk``/``-stop`` the same with the text streaming in:
each sentence goes to the speaker the moment it is complete, so the client
hears the first one while the rest of the text is still being written. Bad
input is answered with an ``error`` event, and the connection goes on; a frame
that cannot be read, or passes the limits of ``network.wyoming_wire``, is
answered the same way and ends the connection. Either is logged in one line, at
most once per kind every 10 s (``bus.ratelimit``): a client cannot flood the log.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

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

from bus.ratelimit import RateLimitedLog
from network.wyoming_wire import FRAME_TIMEOUT, BadFrame, EventReader, check
from services.base.speech_bridge import RATE, BridgeError
from services.wyoming.audio_out import AudioOut
from services.wyoming.errors import ClientError
from services.wyoming.text_stream import TextStream, check_length

if TYPE_CHECKING:  # the detector (and numpy) load only when a client asks for detection
    from hearing.wake import WakeDetector
    from services.wyoming.service import WyomingBridge  # it builds us: no cycle at run time

log = logging.getLogger(__name__)
refusals = RateLimitedLog(log)
"""Refused input, logged once per kind every 10 s: one log for every connection."""

MAX_AUDIO_SECONDS = 60
"""Seconds of audio one transcription takes, and so the audio a connection may hold:
four times the local mic's longest utterance (``[vad] max_utterance``, 15 s), 1.9 MB of
16 kHz PCM16. (At 120 s, 150 connections held 654 MB.)"""
IDLE_TIMEOUT = 300.0
"""Seconds a connection may wait for its next frame. Home Assistant opens one per
request; a wyoming-satellite using our wake word keeps one open and streams its mic
on it, silent only while its turn is answered elsewhere (at most the watchdog's
120 s stall and the answer's playback). A silent connection past that is gone or
hostile; wyoming-satellite connects again when it next needs us."""
HEADER_TIMEOUT = FRAME_TIMEOUT
"""Seconds the rest of a frame may take after its first byte."""


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
        self.events = EventReader(reader)
        self.handling = False
        """An event is being answered (a transcription, a synthesis)."""
        self.finished = time.monotonic()
        """When the last answer ended."""
        self.closing = False
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "a client"

    @property
    def busy(self) -> bool:
        """In the middle of something: a frame, an answer, audio or text being gathered.
        An idle connection may be closed to make room for a new one; a busy one is not."""
        holding = bool(self.audio) and self.detector is None
        return self.handling or self.events.in_frame or holding or self.stream is not None

    @property
    def last_active(self) -> float:
        return max(self.events.last_active, self.finished)

    def close(self) -> None:
        """End the connection from our side (to make room): its reader sees the end."""
        self.closing = True
        self._is_running = False
        self.writer.close()
        self.reader.feed_eof()

    async def run(self) -> None:
        """Read frames within the limits (the wyoming package's own loop reads any
        length it is told) until the client leaves, a frame cannot be read, or none
        comes for ``IDLE_TIMEOUT``; each frame that says something malformed is
        answered with an ``error`` and the connection goes on."""
        self._is_running = True
        try:
            while self._is_running:
                try:
                    event = await self.events.read(IDLE_TIMEOUT, HEADER_TIMEOUT)
                    if event is None:
                        break
                    check(event)
                except BadFrame as exc:
                    await self._refuse(exc, exc.code)
                    if exc.fatal:
                        break
                    continue
                self.handling = True
                try:
                    await self.handle_event(event)
                finally:
                    self.handling = False
                    self.finished = time.monotonic()
        except OSError:
            pass  # the client left while we answered: nothing to tell it
        finally:
            await self.disconnect()
            self.writer.close()

    async def _refuse(self, exc: Exception, code: str, what: str = "a frame") -> None:
        refusals.warn(code, "wyoming: refused %s from %s: %s", what, self.peer, exc)
        await self.write_event(WyomingError(text=str(exc), code=code).event())

    async def handle_event(self, event: Event) -> bool:
        try:
            await self._handle(event)
        except ClientError as exc:
            await self._refuse(exc, exc.code, f"a {event.type} event")
        except BridgeError as exc:
            log.warning("wyoming: %s event failed: %s", event.type, exc)
            await self.write_event(WyomingError(text=str(exc), code=exc.code).event())
        except OSError:
            raise  # the client left: run() ends quietly
        except Exception as exc:  # ours to fix; the client still gets an answer
            if refusals.warn("internal", "wyoming: a %s event failed: %r", event.type, exc):
                log.debug("wyoming: the failure", exc_info=True)
            await self.write_event(WyomingError(text=f"{event.type} failed: {exc}",
                                                code="internal").event())
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
        """Audio of a format ``wyoming_wire.check`` let through (a microphone's), held
        within ``MAX_AUDIO_SECONDS``, judged by its size before it is converted."""
        if self.audio is None:
            raise ClientError("audio-chunk before audio-start", "bad-order")
        if self.detector is None:
            frames = len(chunk.audio) // (chunk.width * chunk.channels)
            if len(self.audio) + 2 * math.ceil(frames * RATE / chunk.rate) > \
                    MAX_AUDIO_SECONDS * RATE * 2:
                self.audio = None
                raise ClientError(f"more than {MAX_AUDIO_SECONDS} s of audio", "too-long")
        try:
            pcm = self.converter.convert(chunk).audio
        except Exception as exc:  # checked already: a last guard
            raise ClientError(f"unreadable audio: {exc}", "bad-audio") from None
        if self.detector is not None:
            if not self.detected and self.detector.hear(pcm):
                self.detected = True
                await self.write_event(Detection(name=self.detector.model,
                                                 timestamp=chunk.timestamp).event())
            return
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
