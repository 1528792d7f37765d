"""The speaker loop: SpeakRequest, ActionRequest and VolumeRequest in; Speaking, Spoken and
VolumeState out. Its start (``serve_with``) takes the engine to load (``--engine``) and
``--wav-out``, loads the engine's voice, opens the volume and speaks until stopped."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import threading
from collections.abc import Callable
from pathlib import Path

from bus.client import Bus
from bus.errors import ErrorCode
from bus.messages import (
    ActionRequest,
    BargeIn,
    Error,
    Interrupted,
    Speaking,
    SpeakRequest,
    Speculation,
    Spoken,
    SynthesizeRequest,
    TtsAudio,
    VolumeRequest,
    VolumeState,
)
from services.base.runner import ServiceMain, load_in_thread
from services.base.service import Service
from services.tts.control import apply_controls
from services.tts.engines import DEFAULT, ENGINES, engine_loader
from services.tts.export import Export
from services.tts.hold import Hold
from services.tts.interrupt import FADE, played_text
from services.tts.output import AudioOutput
from services.tts.pcm import TONE_GAP, ack_tone, seconds_of, silence, to_pcm16
from services.tts.playback import PlaybackEvent, PlaybackQueue, Segment
from services.tts.recording import TurnRecorder
from services.tts.reference import Reference
from services.tts.synthesis import Job, Line, LineEnd, SynthesisWorker, Synthesizer, TurnEnd
from services.tts.tracing import trace_start
from services.tts.turns import Turns
from services.tts.voices import VoiceError
from settings import Config
from settings.schema import AudioConfig
from speaking.volume import Volume, VolumeStore, state_path

log = logging.getLogger(__name__)

TONED_KINDS = frozenset({"answer", "announce", "error"})
"""Kinds whose first piece in a turn is preceded by the acknowledgement tone."""
OPEN_TURN_GRACE = 5.0
"""Seconds of silence after which a turn whose final piece never came stops counting."""
HOLD_LIMIT = 60.0
"""Seconds speculative pieces wait for a verdict before they are dropped (a dialogue that died
between its guess and the final transcript must not leave audio held for ever)."""


class Speaker(Service):
    def __init__(
        self,
        bus: Bus,
        audio: AudioConfig,
        synthesizer: Synthesizer,
        volume: Volume,
        wav_out: Path | None = None,
    ) -> None:
        super().__init__(bus)
        self.audio = audio
        self.synth = synthesizer
        self.volume = volume
        self.playback = PlaybackQueue()
        self.turns = Turns()
        self.recorder = TurnRecorder(wav_out, synthesizer.sample_rate) if wav_out else None
        self.tone = ack_tone(synthesizer.sample_rate) if audio.ack_tone else None
        self._pending_jobs = 0
        self._unfinished_segments = 0
        self._speaking: str | None = None
        """The turn reported by ``Speaking(True)``, until ``Speaking(False)``."""
        self._grace: asyncio.TimerHandle | None = None
        self.exports: dict[str, Export] = {}
        """Synthesis for others (by request id), until its final chunk is sent."""
        self._in_loop: Callable[..., None] = lambda func, *args: None
        self.output: AudioOutput | None = None

    async def on_start(self) -> None:
        loop = asyncio.get_running_loop()

        def in_loop(func: Callable[..., object], *args: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: we are shutting down
                loop.call_soon_threadsafe(func, *args)

        worker = SynthesisWorker(
            self.synth,
            self.volume,
            self.playback,
            done=lambda segments: in_loop(self._job_done, segments),
            failed=lambda line, error: in_loop(self._synthesis_failed, line, error),
            shortest=self.audio.first_piece,
        )
        reference = Reference(self.synth.sample_rate, self.bus.publish)
        output = AudioOutput(
            self.playback,
            self.synth.sample_rate,
            self.audio.output,
            on_state=lambda state, detail: in_loop(self.bus.set_state, state, detail),
            on_played=(lambda pcm, start: in_loop(reference.add, pcm, start))
            if self.audio.echo_cancel is True and self.audio.echo_reference == "bus" else None,
            latency=self.audio.output_latency,
        )
        pump = threading.Thread(
            target=self._pump_events, args=(in_loop,), name="playback-events", daemon=True
        )
        self.worker = worker
        self.output = output
        self._in_loop = in_loop
        worker.start()
        pump.start()
        output.start()
        self.bus.publish(VolumeState(volume=self.volume.value))

    def report_ready(self) -> None:
        """The output reports it: ready once its device plays, else why not."""

    async def on_stop(self) -> None:
        """Runs only after :meth:`on_start` has built both."""
        if self.output is not None:
            self.output.close()
        self.worker.close()
        self.playback.events.put(None)
        if self.recorder is not None:
            self.recorder.write_all()

    def _pump_events(self, in_loop: Callable[..., None]) -> None:
        while (event := self.playback.events.get()) is not None:
            in_loop(self._on_playback, event)

    # -- messages ----------------------------------------------------------------

    def _speculation(self, msg: Speculation) -> None:
        if msg.turn is not None:
            self._verdict(msg.turn, msg.confirmed)

    def _control(self, msg: ActionRequest) -> None:
        state = self.turns.get(msg.turn or msg.id)
        changed, override = apply_controls(msg.actions, self.volume, msg.lang)
        log.info("control %s: volume %.1f%s", msg.actions, self.volume.value,
                 f", saying {override!r} instead" if override else "")
        if override is not None:
            state.override, state.lang = override, msg.lang
        if changed or override is not None:
            # Also at a limit, unchanged: the dialogue learns what is said instead.
            self.bus.publish(VolumeState(volume=self.volume.value, turn=msg.turn,
                                         reply_to=msg.id, said_instead=state.override or ""))

    def _volume_command(self, msg: VolumeRequest) -> None:
        if msg.action in ("up", "down"):
            self.volume.step(msg.action)
        elif msg.action == "set" and msg.value is not None and math.isfinite(msg.value):
            self.volume.set(msg.value)
        elif msg.action != "get":
            log.warning("ignoring a bad volume command: %s %r", msg.action, msg.value)
        self.bus.publish(VolumeState(volume=self.volume.value, reply_to=msg.id))

    def _say(self, msg: SpeakRequest) -> None:
        turn = msg.turn or msg.id  # a SpeakRequest without a turn is a turn of its own
        state = self.turns.get(turn)
        speculative = msg.speculative and msg.turn is not None
        held = state.hold is not None and state.hold.state == "held"
        if state.cut:
            log.info("turn %s: cut off, not spoken: %r", turn, msg.text[:60])
            return
        if state.ended and (speculative or not held):
            # (A piece for real while speculative ones wait replaces them, final one and all.)
            log.info("turn %s: a piece after the final one, not spoken: %r", turn, msg.text[:60])
            return
        hold = self._hold_for(turn, speculative)  # (may drop held pieces: before ``ended``)
        state.ended = msg.final
        state.traced = state.traced or msg.turn is not None
        text, lang = msg.text, msg.lang
        if msg.kind == "answer" and state.override is not None:
            # The brain could not know the volume was already at its limit: its words go.
            text = "" if state.override_said else state.override
            lang, state.override_said = state.lang, True
        if text.strip():
            if self.tone is not None and not state.toned and msg.kind in TONED_KINDS:
                state.toned = True
                if hold is not None:
                    state.tone_pending = True  # decided at the release
                else:
                    self._submit(Job(line=Line(turn, "", lang, spoken=False), samples=self.tone,
                                     gap=TONE_GAP))
            line = Line(turn, text, lang, msg.seq, kind=msg.kind)
            state.lines.append(line)
            if hold is not None:
                hold.lines.append(line)
            self._submit(Job(line=line, markers=(LineEnd(line),), hold=hold))
            state.open = True
        if (msg.final or msg.turn is None) and state.open:
            state.open = False
            self._submit(Job(markers=(TurnEnd(turn),), hold=hold))

    def _hold_for(self, turn: str, speculative: bool) -> Hold | None:
        """The hold a piece goes to: the turn's current one for a speculative piece (a new
        one after a verdict). A piece for real while pieces are held means someone else
        speaks for the turn (the STT's apology): what was held is dropped."""
        state = self.turns.get(turn)
        held = state.hold is not None and state.hold.state == "held"
        if speculative:
            if not held:
                state.hold = Hold(self.playback)
                asyncio.get_running_loop().call_later(
                    HOLD_LIMIT, self._verdict, turn, False, state.hold
                )
            return state.hold
        if held:
            log.warning("turn %s: a piece for real while speculative ones wait: dropping them",
                        turn)
            self._verdict(turn, False)
        return None

    def _verdict(self, turn: str, confirmed: bool, only: Hold | None = None) -> None:
        """Play (``confirmed``) or drop the turn's held pieces; ``only``: if still that hold."""
        state = self.turns.get(turn)
        hold = state.hold
        if hold is None or hold.state != "held" or (only is not None and hold is not only):
            return
        if confirmed:
            lead: list[Segment] = []
            if state.tone_pending and self.tone is not None:
                line = Line(turn, "", state.lang, spoken=False)
                gap = silence(TONE_GAP, self.synth.sample_rate)
                lead = [Segment(to_pcm16(self.tone, self.volume.value), line),
                        Segment(gap, line, yields=True)]
            state.tone_pending = False
            self._unfinished_segments += hold.release(lead)
            log.debug("turn %s: speculative pieces released", turn)
            return
        hold.drop()
        dropped = {id(line) for line in hold.lines}
        state.lines = [line for line in state.lines if id(line) not in dropped]
        log.info("turn %s: speculative pieces dropped", turn)
        state.open = state.toned = state.tone_pending = state.ended = False
        self._check_silent()

    def _barge_in(self, msg: BargeIn) -> None:
        """The user talks over the assistant: fade out, drop everything queued or held, and
        answer with what was heard of the turn that spoke (once the fade is done)."""
        turns = {*self.turns.playing_turns(), *self.playback.queued_turns()}
        for turn in (msg.interrupted, self._speaking):
            if turn:
                turns.add(turn)
        for turn in turns:
            state = self.turns.get(turn)
            state.cut = state.ended = True
            state.open = state.tone_pending = False
            if state.hold is not None:
                state.hold.drop()
        spoke = msg.interrupted or self._speaking or ""
        log.info("barge-in (%s): cutting off %s", msg.reason, ", ".join(sorted(turns)) or "nothing")
        fade = round(FADE * self.synth.sample_rate)

        def cut(now: float) -> None:  # the fade starts where the user is hearing the answer
            self.playback.rewind(now)
            self.playback.cut(turns, fade, (msg.id, spoke))

        if self.output is not None and turns:
            self.output.flushed(cut)
        else:  # nothing of ours in the device's buffer (or no device yet): nothing to drop
            self.playback.cut(turns, fade, (msg.id, spoke))

    def _silenced(self, token: tuple[str, str], silent: float) -> None:
        barge_in, turn = token
        played, cut = played_text(self.turns.get(turn).lines if turn else [])
        self.bus.publish(Interrupted(played=played, cut=cut, silent=silent, reply_to=barge_in,
                                     turn=turn or None))
        self._check_silent()

    def _synthesize(self, msg: SynthesizeRequest) -> None:
        """Speech for the sender, not the sound card: in the same worker, so after what is
        already queued to play (one voice model, one synthesis at a time)."""
        export = Export(msg, self.synth.sample_rate, self._send_export)
        self.exports[msg.id] = export
        line = Line(msg.id, msg.text, msg.lang, spoken=False, kind="export")
        in_loop = self._in_loop
        self._submit(Job(line=line, markers=(export,),
                         sink=lambda segment: in_loop(export.take, segment)))

    def _send_export(self, audio: TtsAudio) -> None:
        if audio.final:
            self.exports.pop(audio.reply_to or "", None)
        self.bus.publish(audio)

    def _submit(self, job: Job) -> None:
        self._pending_jobs += 1
        self.worker.put(job)

    # -- events from the synthesis and audio threads -------------------------------

    def _job_done(self, segments: int) -> None:
        self._pending_jobs -= 1
        self._unfinished_segments += segments
        self._check_silent()

    def _synthesis_failed(self, line: Line, error: str) -> None:
        export = self.exports.get(line.turn) if line.kind == "export" else None
        if export is not None:
            export.fail(error)  # its asker hears of it in the final chunk
            return
        self.bus.publish(
            Error(
                service=self.bus.name,
                code=ErrorCode.TTS_SYNTHESIS_FAILED,
                message=error,
                turn=line.turn,
            )
        )

    def _on_playback(self, event: PlaybackEvent) -> None:
        tag, pcm = event.segment.tag, event.segment.pcm
        if event.kind == "silenced":
            self._silenced(tag, event.time)
            return
        if event.kind == "dropped":
            self._unfinished_segments -= 1
            self._check_silent()
            return
        if event.kind == "started":
            if isinstance(tag, Line):
                trace_start(self.bus, self.turns.get(tag.turn), tag, event)
            if isinstance(tag, Line) and tag.turn != self._speaking:
                self._speaks_for(tag.turn)
            return
        self._unfinished_segments -= 1
        if isinstance(tag, Line):
            tag.played += seconds_of(pcm, self.synth.sample_rate)
            if self.recorder is not None:
                self.recorder.add(tag.turn, pcm)
        elif isinstance(tag, LineEnd) and tag.line.spoken and tag.line.played > 0:
            line = tag.line
            line.finished = True
            self.bus.publish(
                Spoken(text=line.text, lang=line.lang, seq=line.seq,
                       duration=round(line.played, 3), turn=line.turn)
            )
        elif isinstance(tag, TurnEnd) and self.recorder is not None:
            self.recorder.write(tag.turn)
        self._check_silent()

    def _speaks_for(self, turn: str) -> None:
        """``turn``'s audio starts. It is the speaking turn when none is, or when the one that
        is was cut off: its synthesis may still be running, yet the mic ignores its news and
        must hear that this one speaks (to go deaf, and to name it in a barge-in)."""
        if self._speaking is not None:
            if not self.turns.get(self._speaking).cut:
                return  # answers in a row: one span of speech
            self.bus.publish(Speaking(speaking=False, turn=self._speaking))
        self._speaking = turn
        self.bus.publish(Speaking(speaking=True, turn=turn))

    def _check_silent(self) -> None:
        """Report ``Speaking(False)`` once nothing is queued, synthesizing or still to come."""
        if self._speaking is None or self._pending_jobs or self._unfinished_segments:
            return
        if self.turns.open_turns():
            if self._grace is None:  # the turn's next piece may still come: stay deaf a while
                self._grace = asyncio.get_running_loop().call_later(
                    OPEN_TURN_GRACE, self._give_up_open_turns
                )
            return
        self._stop_speaking()

    def _give_up_open_turns(self) -> None:
        self._grace = None
        if self._speaking is None or self._pending_jobs or self._unfinished_segments:
            return
        for turn in self.turns.open_turns():
            log.warning("turn %s: no final piece within %g s of silence", turn, OPEN_TURN_GRACE)
            self.turns.get(turn).open = False
            if self.recorder is not None:
                self.recorder.write(turn)
        self._stop_speaking()

    def _stop_speaking(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        turn, self._speaking = self._speaking, None
        self.bus.publish(Speaking(speaking=False, turn=turn))

    HANDLERS = {
        SpeakRequest: _say,
        ActionRequest: _control,
        VolumeRequest: _volume_command,
        Speculation: _speculation,
        SynthesizeRequest: _synthesize,
        BargeIn: _barge_in,
    }


def add_speaker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine", choices=sorted(ENGINES), default=DEFAULT,
        help=f"the voice engine (default {DEFAULT}; espeak: espeak-ng, light and robotic)",
    )
    parser.add_argument(
        "--wav-out", metavar="DIR", type=Path,
        help="also write each turn's spoken audio to DIR/<turn>.wav",
    )


def serve_with(load: Callable[[Config], Synthesizer]) -> ServiceMain:
    """The speaker's start-up with the voice that ``load`` builds from the config."""

    async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
        bus.set_state("starting", "loading the voice")
        try:
            synthesizer = await load_in_thread(load, config)  # SIGTERM does not wait for it
        except VoiceError as exc:
            log.error("%s: %s", bus.name, exc)
            raise SystemExit(2) from None
        volume = Volume(config.audio.volume, VolumeStore(state_path()))
        log.info("%s: voice loaded, volume %.1f", bus.name, volume.value)
        await Speaker(bus, config.audio, synthesizer, volume, args.wav_out).run()

    return serve


def start(config: Config, args: argparse.Namespace) -> ServiceMain:
    """The speaker with the engine ``--engine`` names (loaded after the bus is reached)."""
    return serve_with(engine_loader(args.engine))
