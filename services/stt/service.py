"""The STT service's loop: utterances in, transcripts out, speculating while the window runs.

A partial utterance (sent when the end-of-speech window starts) is
transcribed at once, and its text goes out as a ``SpeculativeTranscript``
the moment it is known (the dialogue may prepare the answer meanwhile); when
the final utterance of that turn arrives with the same audio, that
transcript is published without a second run, so the transcript follows the
window's end almost at once. Only finals lead to a Transcript. Failures
become an ``Error`` and a spoken apology for the turn.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field

from bus.client import Bus
from bus.errors import ErrorCode
from bus.messages import (
    Error,
    SpeakRequest,
    SpeculativeTranscript,
    SpeechResumed,
    Transcript,
    TurnDropped,
    Utterance,
)
from hearing.stt.backends import backend_problems, open_backend
from hearing.stt.engine import Backend, Recognized, SttFailed, SttUnavailable, Superseded
from services.base.names import STT
from services.base.phrases import apology
from services.base.runner import ServiceMain, StartupError, load_in_thread
from services.base.service import Service
from services.stt.text import spoken_words
from settings.schema import Config

log = logging.getLogger(__name__)

@dataclass
class Job:
    utterance: Utterance
    task: asyncio.Task[Recognized] | None = None
    started: bool = False
    compute: float = 0.0
    stop: threading.Event = field(default_factory=threading.Event)
    """Set when the job's text is no longer wanted: the backend gives up at its next step."""


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    """Open the backend of ``[whisper]``, then transcribe until stopped."""
    SpeechToText.subscribe(bus)  # now: utterances that come while the model loads wait
    backend = await open_backend(config, bus.set_state, load_in_thread)
    stt = SpeechToText(
        bus,
        backend,
        speculative=config.whisper.speculative,
        lang=config.audio.default_lang,
        max_seconds=config.vad.max_utterance + UTTERANCE_MARGIN,
    )
    try:
        await stt.serve()
    finally:
        await stt.close()
        await backend.close()


UTTERANCE_MARGIN = 2.0
"""Seconds an utterance may run past ``[vad] max_utterance``: the mic cuts at that length,
plus the frames of its end-of-speech window and padding."""


class SpeechToText(Service):
    def __init__(
        self,
        bus: Bus,
        backend: Backend,
        *,
        speculative: bool,
        lang: str,
        max_seconds: float = 15.0 + UTTERANCE_MARGIN,
    ) -> None:
        super().__init__(bus)
        self.max_seconds = max_seconds
        """Longer audio is refused untranscribed: no mic of ours sends it, and one 200 s
        utterance from a peer held the engine for about 20 s, delaying every next turn."""
        self.backend = backend
        self.speculative = speculative
        self.lang = lang
        """The language of a transcript whose backend named none, and of the apology."""
        self.usual: dict[str | None, str] = {}
        """The language of the last transcript from each site (the mic's: None): a hint for
        the next utterance there, when it is a word or two."""
        self.jobs: dict[str, Job] = {}
        """The speculative job of each turn whose final has not come yet."""
        self._engine = asyncio.Lock()  # one transcription at a time: the CPU is small

    def on_utterance(self, utterance: Utterance) -> None:
        problem = _bad_audio(utterance, self.max_seconds)
        if problem:
            log.warning("utterance %s dropped: %s", utterance.turn, problem)
            if not utterance.partial:
                self._fail(utterance, ErrorCode.STT_FAILED, problem)
            return
        if utterance.partial:
            if self.speculative:
                self._speculate(utterance)
            return
        self.tasks.spawn(self._finish(utterance))

    def _speculate(self, utterance: Utterance) -> None:
        for turn in list(self.jobs):  # older turns and earlier partials are superseded
            self._drop(self.jobs.pop(turn))
        job = Job(utterance)
        job.task = asyncio.ensure_future(self._transcribe(job))
        job.task.add_done_callback(_consume)
        job.task.add_done_callback(lambda _: self._guessed(job))
        self.jobs[utterance.turn or ""] = job

    def on_resumed(self, msg: SpeechResumed) -> None:
        """Speech went on after the partial: its guess is stale. A queued run never starts,
        a running one gives up before its next step and publishes nothing, and the CPU is
        free for the next partial (the whole question)."""
        job = self.jobs.get(msg.turn or "")
        if job is not None and job.utterance.speech_end <= msg.resumed_at:
            self._drop(self.jobs.pop(msg.turn or ""))

    def _guessed(self, job: Job) -> None:
        """Publish a speculative run's text, unless its final came first or it was superseded
        (then the Transcript, or a later guess, says all there is)."""
        u = job.utterance
        task = job.task
        if self.jobs.get(u.turn or "") is not job or task is None or task.cancelled():
            return
        if task.exception() is not None:
            return
        text = spoken_words(task.result().text)
        if text:
            self.bus.publish(
                SpeculativeTranscript(
                    text=text, lang=task.result().lang or self.lang, duration=u.duration,
                    compute=job.compute, speech_end=u.speech_end, turn=u.turn,
                )
            )

    def _drop(self, job: Job) -> None:
        """A job superseded by a newer utterance of its turn (or of a later turn)."""
        if job.task is not None and not job.started:
            job.task.cancel()  # still queued: never runs
        # Running: the engine cannot be interrupted mid-step, but the run gives up before
        # its next one. The guess of a pause is often a cut-off half that the short window
        # cannot trust; its whole-window fallback (0.6-1.8 s on 2 cores) held the engine
        # while the whole question's run waited behind it (issue 29).
        job.stop.set()

    async def _transcribe(self, job: Job) -> Recognized:
        async with self._engine:
            job.started = True
            began = time.perf_counter()
            try:
                u = job.utterance
                return await self.backend.transcribe(u.pcm, u.rate, self.usual.get(u.site),
                                                     job.stop)
            finally:
                job.compute = time.perf_counter() - began

    async def _finish(self, utterance: Utterance) -> None:
        job = self.jobs.pop(utterance.turn or "", None)
        result: Recognized | None = None
        if job is not None and job.task is not None and job.utterance.pcm == utterance.pcm:
            try:
                result = await job.task
            except (SttUnavailable, SttFailed, Superseded, asyncio.CancelledError) as exc:
                log.info("turn %s: the speculative run failed (%s)", utterance.turn, exc)
        elif job is not None:
            self._drop(job)
        reused = result is not None
        if result is None:
            job = Job(utterance)
            try:
                result = await self._transcribe(job)
            except SttUnavailable as exc:
                self.bus.set_state("degraded", str(exc)[:200])
                self._fail(utterance, ErrorCode.STT_UNAVAILABLE, str(exc))
                return
            except SttFailed as exc:
                self._fail(utterance, ErrorCode.STT_FAILED, str(exc))
                return
        assert job is not None
        if self.bus.state == "degraded":
            self.bus.set_state("ready")  # the engine answered again
        self._publish(utterance, result, job.compute, reused)

    def _publish(
        self, utterance: Utterance, result: Recognized, compute: float, reused: bool
    ) -> None:
        text = spoken_words(result.text)
        if not text:
            log.info("turn %s: no words in %r, dropped", utterance.turn, result.text)
            self.bus.publish(TurnDropped(reason="no-speech", turn=utterance.turn))
            return
        if result.lang and utterance.purpose == "turn":
            self.usual[utterance.site] = result.lang
        self.bus.publish(
            Transcript(
                text=text,
                lang=result.lang or self.lang,
                duration=utterance.duration,
                compute=compute,
                speech_end=utterance.speech_end,
                purpose=utterance.purpose,
                turn=utterance.turn,
            )
        )
        log.info(
            "turn %s: %r (%s) %.2f s after the end of speech, %.2f s compute%s",
            utterance.turn, text, result.lang, time.time() - utterance.speech_end, compute,
            ", speculative" if reused else "",
        )

    def _fail(self, utterance: Utterance, code: ErrorCode, message: str) -> None:
        log.error("turn %s: %s: %s", utterance.turn, code, message)
        self.bus.publish(Error(service=STT, code=code, message=message, turn=utterance.turn,
                               reply_to=utterance.id))
        if utterance.purpose != "turn":
            return  # only its text was wanted: the asker reports the failure, nobody speaks
        text, lang = apology(code, self.lang)
        self.bus.publish(
            SpeakRequest(
                text=text, lang=lang, kind="error", seq=0, final=True, turn=utterance.turn
            )
        )

    async def close(self) -> None:
        for job in self.jobs.values():
            self._drop(job)
        self.tasks.cancel()

    HANDLERS = {Utterance: on_utterance, SpeechResumed: on_resumed}


def _bad_audio(utterance: Utterance, max_seconds: float) -> str:
    if utterance.rate != 16000:
        return f"rate {utterance.rate} Hz, expected 16000"
    if not utterance.pcm or len(utterance.pcm) % 2:
        return f"{len(utterance.pcm)} bytes is not PCM16 audio"
    seconds = len(utterance.pcm) / 2 / utterance.rate  # the audio's own length, not its label
    if seconds > max_seconds:
        return (
            f"{seconds:.1f} s of audio is longer than [vad] max_utterance allows "
            f"({max_seconds:g} s with the margin); not transcribed"
        )
    return ""


def _consume(task: asyncio.Task[Recognized]) -> None:
    """A speculative run nobody awaits any more must not log 'exception never retrieved'."""
    if not task.cancelled():
        task.exception()


def start(config: Config, args: argparse.Namespace) -> ServiceMain:
    """``[whisper] backend`` names a backend there is (a bad name is a config error, not a
    reason to restart); whether it can work is found out after the bus is reached."""
    for problem in backend_problems(config.whisper):
        raise StartupError(f"stt: {problem}")
    return serve
