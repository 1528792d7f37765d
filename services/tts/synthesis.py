"""The synthesis thread: text to clause pieces to PCM, queued for playback in order."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, cast

from services.tts.clauses import (
    MAX_CHARS,
    MIN_LIMIT,
    Piece,
    cut_piece,
    limit_for,
    split_clauses,
)
from services.tts.clock import spoken_times
from services.tts.hold import Hold
from services.tts.pcm import (
    Samples,
    seconds_of,
    silence,
    to_pcm16,
    trim_lead,
    trim_tail,
)
from services.tts.playback import PlaybackQueue, Segment
from services.tts.voices import LanguageUnavailable
from speaking.volume import Volume

log = logging.getLogger(__name__)


class Synthesizer(Protocol):
    """What a TTS backend gives the speaker: mono float samples at ``sample_rate``."""

    sample_rate: int
    short_first_piece: bool
    """Cut a reply's first piece short (``[audio] first_piece``) so it is ready sooner, and
    let the pieces grow as audio queues up: for a synthesizer whose time grows with the text
    (Kokoro). A fast one (espeak-ng) says False and gets whole clauses: a clause cut in two
    is spoken as two sentences, each with its own falling end."""

    def synthesize(self, text: str, lang: str) -> Samples:
        """Speak ``text`` (one clause) in the turn's language ``lang`` (``en``, ``it``...)."""
        ...


@dataclass
class Line:
    """One piece of a turn to play: a SpeakRequest, an override phrase, or the tone (not
    ``spoken``)."""

    turn: str
    text: str
    lang: str
    seq: int = 0
    spoken: bool = True
    """Report it with ``Spoken`` once played."""
    kind: str = "answer"
    """The ``SpeakRequest`` kind it came from (its first played piece is traced per kind)."""
    played: float = 0.0
    """Seconds played so far (updated from playback events)."""
    finished: bool = False
    """Played to its end (its ``LineEnd`` came out of the playback queue)."""
    made_chars: int = 0
    """Characters of its text synthesized so far, and the seconds of audio they made: a
    cut line's played text is estimated from them."""
    made_seconds: float = 0.0


@dataclass(frozen=True)
class LineEnd:
    line: Line


@dataclass(frozen=True)
class TurnEnd:
    turn: str


@dataclass(frozen=True)
class Job:
    """Queue ``samples`` as they are, or synthesize ``line.text``; then the ``markers``."""

    line: Line | None = None
    samples: Samples | None = None
    markers: tuple[object, ...] = ()
    hold: Hold | None = None
    """Speculative: its segments wait there for the verdict instead of playing."""
    gap: float = 0.0
    """Seconds of silence after ``samples`` that give way to what follows (``yields``)."""
    sink: Callable[[Segment], None] | None = None
    """Audio for someone else (a Wyoming client): each segment goes there, at full volume
    (the listener has its own), instead of the playback queue; then the markers."""


class SynthesisWorker:
    """Runs jobs one at a time off the bus loop; ``done(segments queued)`` follows each job.

    ``failed(line, error)`` reports a piece that could not be synthesized; the
    rest of the line is still spoken. A piece in a language the voice cannot speak
    (:class:`LanguageUnavailable`) is reported once per turn, and logged once.
    """

    def __init__(
        self,
        synthesizer: Synthesizer,
        volume: Volume,
        playback: PlaybackQueue,
        done: Callable[[int], None],
        failed: Callable[[Line, str], None],
        shortest: int = MIN_LIMIT,
    ) -> None:
        self._synth = synthesizer
        self._shortest = shortest if synthesizer.short_first_piece else MAX_CHARS
        self._volume = volume
        self._playback = playback
        self._done = done
        self._failed = failed
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._unavailable_turn: str | None = None
        """The turn last told that its language cannot be spoken."""
        self._unavailable_logged: set[str] = set()
        self._thread = threading.Thread(target=self._run, name="synthesis", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def put(self, job: Job) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(2)  # a daemon: a long synthesis must not hold up the shutdown

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            queued: list[Segment] = []
            try:
                self._do(job, queued)
            finally:
                self._done(len(queued))

    def _do(self, job: Job, queued: list[Segment]) -> None:
        hold = job.hold

        sent = 0.0  # a sink's audio so far: what its listener has queued, at most

        def put(segment: Segment) -> None:
            nonlocal sent
            if job.sink is not None:
                sent += seconds_of(segment.pcm, rate)
                job.sink(segment)
                return
            if hold is None:
                self._playback.put(segment)
            elif not hold.put(segment):
                return  # held, or dropped: not the playback queue's (yet)
            queued.append(segment)

        rate = self._synth.sample_rate
        if job.samples is not None and job.line is not None:
            put(Segment(to_pcm16(job.samples, self._volume.value), job.line))
            if job.gap:
                put(Segment(silence(job.gap, rate), job.line, yields=True))
        elif job.line is not None:
            pieces = deque(split_clauses(job.line.text))
            turn = job.line.turn
            stopped = lambda: (hold is not None and hold.dropped) or self._playback.is_cut(turn)  # noqa: E731
            while pieces and not stopped():
                # Each piece is short enough to be ready before what is queued has played:
                # the first of a reply is short, the next grow as audio piles up.
                ahead = self._playback.queued_seconds(rate) if job.sink is None else sent
                if hold is not None:
                    ahead += hold.held_seconds(rate)
                piece, rest = cut_piece(pieces.popleft(), limit_for(ahead, self._shortest))
                if rest is not None:
                    pieces.appendleft(rest)
                self._speak(piece, job.line, ahead, put, stopped, loud=job.sink is None)
        for marker in job.markers:
            put(Segment(b"", marker))

    def _speak(
        self,
        piece: Piece,
        line: Line,
        queued: float,
        put: Callable[[Segment], None],
        dropped: Callable[[], bool],
        loud: bool = True,
    ) -> None:
        """Synthesize one piece and queue its audio chunk by chunk, as each is ready."""
        rate = self._synth.sample_rate
        # A one-clip synthesizer's trailing silence goes too: where a piece joins the next,
        # nothing is inserted; after a mark, the mark's own pause follows.
        one_clip = getattr(self._synth, "stream", None) is None
        started = time.perf_counter()
        try:
            for number, samples in enumerate(_chunks(self._synth, piece.text, line.lang, queued)):
                compute = time.perf_counter() - started
                log.debug("synthesized %r (chunk %d) in %.3f s: %.2f s of audio", piece.text,
                          number, compute, len(samples) / rate)
                if number == 0:
                    samples = trim_lead(samples, rate)
                if one_clip:
                    samples = trim_tail(samples, rate)
                # The volume is read per chunk: a control applied meanwhile is heard at once.
                volume = self._volume.value if loud else 1.0
                put(Segment(to_pcm16(samples, volume), line, made=time.time(),
                            compute=compute))
                line.made_seconds += len(samples) / rate
                if dropped():
                    return
                started = time.perf_counter()
        except LanguageUnavailable as exc:  # every piece in this language fails the same way
            self._unavailable(line, str(exc))
            return
        except Exception as exc:  # bad text or a backend failure: skip (the rest of) this piece
            log.error("could not synthesize %r: %s", piece.text, exc)
            self._failed(line, f"{piece.text!r}: {exc}")
            return
        line.made_chars += len(piece.text)
        if piece.pause:
            put(Segment(silence(piece.pause, rate), line, made=time.time()))

    def _unavailable(self, line: Line, reason: str) -> None:
        """A piece in a language the voice cannot speak: its turn is told once (a reply of
        ten sentences is one error, not ten), the log once for all turns."""
        if line.turn == self._unavailable_turn:
            return
        self._unavailable_turn = line.turn
        if reason in self._unavailable_logged:
            log.debug("turn %s in %s not spoken: %s", line.turn, line.lang, reason)
        else:
            self._unavailable_logged.add(reason)
            log.error("turn %s in %s not spoken: %s", line.turn, line.lang, reason)
        self._failed(line, reason)


def _chunks(synth: Synthesizer, text: str, lang: str, queued: float) -> Iterator[Samples]:
    """The backend's chunks of ``text`` where it streams (Kokoro), else its one piece."""
    text = spoken_times(text, lang)
    stream = getattr(synth, "stream", None)
    if stream is None:
        return iter([synth.synthesize(text, lang)])
    return cast(Iterator[Samples], stream(text, lang, queued))
