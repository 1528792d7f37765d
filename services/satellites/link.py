"""One satellite: connect as Home Assistant does, hear its questions, answer into its speaker.

The assistant is the client: it connects to the ``wyoming-satellite`` program and
sends ``run-satellite``; the satellite answers with ``run-pipeline`` (starting at
``wake`` when it has no wake word of its own, at ``asr`` after its own word) and
streams its mic. Our ear cuts the question out of the stream (after our wake word
when asked), and the turn answers with the events Home Assistant sends:
``detection``, ``voice-started``, ``voice-stopped``, ``transcript``, the answer's
``audio-start``/``-chunk``/``-stop`` and ``synthesize``. The mic's audio that
arrives while the turn runs and its answer plays is not heard (the satellite's mic
would hear our own answer). A satellite that is down or hangs up is tried again
with exponential backoff; a turn in progress is dropped with it. So is one that
sends what cannot be read or is malformed (``network.wyoming_wire``: the same
limits as the Wyoming server's): every error ends that connection, is logged and
reported (``degraded`` in the heartbeat, so ``doctor`` shows it), and the link
connects again after the same backoff; none ends the link.

Its events are believed: ``run-pipeline`` from ``asr`` says the satellite heard its
own wake word, and what follows is a question. ``wake = "ours"`` believes no such
claim: our wake word is needed in its stream whatever it says.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from wyoming.asr import Transcript as WyomingTranscript
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStop
from wyoming.event import Event, async_write_event
from wyoming.pipeline import PipelineStage, RunPipeline
from wyoming.satellite import RunSatellite
from wyoming.vad import VoiceStarted, VoiceStopped
from wyoming.wake import Detection

from bus.message import new_id
from bus.messages import VolumeState
from network.wyoming_wire import MAX_LINE, BadFrame, EventReader, check
from services.base.phrases import apology
from services.base.speech_bridge import BridgeError
from services.satellites.answer import Answer, Send
from services.satellites.ear import Began, Ear, Ended, Woke
from settings.schema import SatelliteConfig
from speaking.volume import Volume

if TYPE_CHECKING:  # the service builds the bridge and hands it here: no cycle at run time
    from services.satellites.service import SatelliteBridge

log = logging.getLogger(__name__)

FIRST_RETRY = 0.5
LAST_RETRY = 30.0
"""Seconds between tries to reach a satellite that is down: doubling from the first to
the last, so a satellite gone for the night costs two connection attempts a minute."""
CONNECT_TIMEOUT = 5.0
DEAF_TAIL = 0.5
"""Seconds after the answer's audio should have ended before the satellite's mic is
heard again (its playback starts a little after our first chunk)."""

Report = Callable[[str, str], None]
"""Told (satellite name, its state in words) on every change."""


class SatelliteLink:
    def __init__(self, name: str, settings: SatelliteConfig, bridge: SatelliteBridge,
                 ear: Ear, volume: Volume, voices: Callable[[str], str], lang: str,
                 report: Report, follow_up: float = 0.0) -> None:
        self.name = name
        host, _, port = settings.uri.removeprefix("tcp://").rpartition(":")
        self.address = (host.strip("[]"), int(port))
        self.settings = settings
        self.bridge = bridge
        self.ear = ear
        self.volume = volume
        self.voices = voices
        self.lang = lang
        self.report = report
        self.follow_up_window = follow_up
        self.converter = AudioChunkConverter(rate=16000, width=2, channels=1)
        self.turn: asyncio.Task[None] | None = None
        self.hearing = True
        """False while a turn runs and its answer plays."""
        self.deafness: asyncio.TimerHandle | None = None
        self.follow_up = 0.0
        """Seconds of the stream, once heard again, in which a question needs no wake
        word: ``[listen] follow_up`` after an answer, 0 after a failed or empty turn."""
        self.our_wake_word = True
        self.speaks = True
        self.send: Send = _unconnected

    async def run(self) -> None:
        """Serve the satellite until cancelled, reconnecting whenever it goes away or
        fails: every error ends the connection it came on, never this loop."""
        delay = FIRST_RETRY
        while True:
            try:
                async with asyncio.timeout(CONNECT_TIMEOUT):
                    # The stream's limit is where reading a header line stops.
                    reader, writer = await asyncio.open_connection(*self.address,
                                                                   limit=MAX_LINE)
            except (OSError, TimeoutError) as exc:
                self.report(self.name, f"unreachable ({exc or 'timed out'}); "
                                       f"trying again in {delay:g} s")
                await asyncio.sleep(delay)
                delay = min(2 * delay, LAST_RETRY)
                continue
            self._hear_again()
            log.info("satellite %s: connected to %s:%d", self.name, *self.address)
            try:
                if await self._serve(reader, writer):
                    delay = FIRST_RETRY  # it served: a hang-up now is news, not a loop
                why = "hung up"
            except BadFrame as exc:
                why = f"dropped ({exc})"
            except OSError as exc:
                why = f"lost ({exc})"
            except Exception as exc:  # ours to fix, but never the end of the room
                log.error("satellite %s: the connection failed", self.name, exc_info=True)
                why = f"dropped after an error ({type(exc).__name__}: {exc})"
            finally:
                self.send = _unconnected
                await self._drop_turn()
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
            log.warning("satellite %s: %s", self.name, why)
            self.report(self.name, f"{why}; trying again in {delay:g} s")
            await asyncio.sleep(delay)
            delay = min(2 * delay, LAST_RETRY)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Run the satellite until it hangs up; True when it sent anything. Raises
        :class:`BadFrame` for what cannot be read or is malformed."""

        async def send(event: Event) -> None:
            await async_write_event(event, writer)

        self.send = send
        await send(RunSatellite().event())
        events = EventReader(reader)
        served = False
        while (event := await events.read()) is not None:
            check(event)
            served = True
            if RunPipeline.is_type(event.type):
                self._pipeline(RunPipeline.from_event(event))
            elif AudioChunk.is_type(event.type):
                await self._audio(AudioChunk.from_event(event))
            elif AudioStop.is_type(event.type):  # its own VAD gave up waiting for a word
                self.ear.expect(self.our_wake_word)
        return served

    def _pipeline(self, pipeline: RunPipeline) -> None:
        wake = self.settings.wake
        # From `wake`: it has no word of its own. From `asr`: it says it heard its own,
        # which `wake = "ours"` does not believe.
        self.our_wake_word = wake == "ours" or (
            wake is True and pipeline.start_stage == PipelineStage.WAKE)
        self.speaks = pipeline.end_stage in (PipelineStage.TTS, None)
        if self.turn is None:
            self.ear.expect(self.our_wake_word)

    async def _audio(self, chunk: AudioChunk) -> None:
        if not self.hearing:
            return  # the question is being answered: what the mic hears now is us
        for heard in self.ear.hear(self.converter.convert(chunk).audio):
            if isinstance(heard, Woke):
                await self.send(Detection(name=heard.word).event())
            elif isinstance(heard, Began):
                await self.send(VoiceStarted().event())
            elif isinstance(heard, Ended):
                await self.send(VoiceStopped().event())
                self.hearing = False
                self.report(self.name, "answering")
                self.turn = asyncio.ensure_future(self._turn(heard.pcm))
                self.turn.add_done_callback(self._turn_done)
                return

    def _turn_done(self, task: asyncio.Task[None]) -> None:
        self.turn = None
        if not task.cancelled() and task.exception() is not None:
            log.error("satellite %s: the turn failed", self.name, exc_info=task.exception())
        if self.deafness is None:
            self._hear_again()

    def _hear_again(self) -> None:
        self.deafness = None
        if self.our_wake_word and self.follow_up:
            self.ear.expect_follow_up(self.follow_up)
        else:
            self.ear.expect(self.our_wake_word)
        self.follow_up = 0.0
        self.hearing = True
        self.report(self.name, "listening")

    async def _drop_turn(self) -> None:
        self.follow_up = 0.0  # a conversation does not outlive the connection
        if self.deafness is not None:
            self.deafness.cancel()
            self.deafness = None
        if self.turn is not None:
            self.turn.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.turn
            self.turn = None

    async def _turn(self, pcm: bytes) -> None:
        turn = new_id()
        lang = self.lang
        try:
            transcript = await self.bridge.transcribe(pcm, turn, self.name)
        except BridgeError as exc:
            log.warning("satellite %s: turn %s: %s", self.name, turn, exc)
            await self.send(WyomingTranscript(text="").event())
            await self._say_apology(exc.code, lang, turn)
            return
        text = transcript.text.strip() if transcript is not None else ""
        if transcript is not None and transcript.lang:
            lang = transcript.lang
        await self.send(WyomingTranscript(text=text, language=lang).event())
        if not text:
            return
        log.info("satellite %s: turn %s: %r", self.name, turn, text)
        before = self.volume.value
        answer = Answer(self.bridge, self._send_audio, self.name, turn, lang,
                        self.voices(lang), self.volume)
        try:
            spoken = await answer.answer(text)
        except BridgeError as exc:
            log.warning("satellite %s: turn %s: %s", self.name, turn, exc)
            answer.say(apology(exc.code, lang)[0])
            spoken = await answer.finish()
        except BaseException:
            answer.cancel()
            raise
        if self.volume.value != before:
            self.bridge.bus.publish(VolumeState(volume=self.volume.value, site=self.name,
                                                turn=turn))
        # As the local mic: an answer, or a silent one with a control (a volume step),
        # keeps the conversation going; a failed or empty one ends it.
        reply = spoken.reply
        if reply is not None and not reply.error and (reply.text.strip() or reply.control):
            self.follow_up = self.follow_up_window
        # Its audio began playing before now: deaf until it must have ended.
        self.deafness = asyncio.get_running_loop().call_later(
            spoken.seconds + DEAF_TAIL, self._hear_again)

    async def _say_apology(self, code: str, lang: str, turn: str) -> None:
        answer = Answer(self.bridge, self._send_audio, self.name, turn, lang,
                        self.voices(lang), self.volume)
        answer.say(apology(code, lang)[0])
        await answer.finish()

    async def _send_audio(self, event: Event) -> None:
        if self.speaks:
            await self.send(event)


async def _unconnected(event: Event) -> None:
    raise ConnectionError("not connected to the satellite")
