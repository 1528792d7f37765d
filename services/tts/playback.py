"""The playback queue: segments of PCM16 in order, pulled by the audio callback."""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Segment:
    pcm: bytes
    """PCM16 mono at the output's rate; empty for a marker (an end of line or turn)."""
    tag: Any
    """Handed back in the segment's events, so the service knows what was played."""
    made: float = 0.0
    """Epoch seconds when its audio was ready (synthesized); 0 for markers and the tone."""
    compute: float = 0.0
    """Seconds its synthesis took."""
    yields: bool = False
    """Silence that ends as soon as anything is queued behind it (the gap after the tone:
    it separates the tone from speech that is late, never delays speech that is ready)."""


@dataclass(frozen=True)
class PlaybackEvent:
    kind: str
    """``started`` (first sample of a non-empty segment), ``finished`` (for a segment faded
    out: its ``pcm`` is the part played), ``dropped`` (cut off unplayed), or ``silenced``
    (a cut is complete: the segment is an empty one tagged with the cut's token)."""
    segment: Segment
    time: float
    """Epoch seconds when it reaches (reached) the device, as well as PortAudio knows."""


class PlaybackQueue:
    """Filled by the synthesis thread; drained by :meth:`fill` in the audio thread.

    :meth:`fill` only copies bytes and appends events to a queue: an exception
    or a slow call there would stop the stream or cause a glitch.
    """

    def __init__(self) -> None:
        self._segments: deque[Segment] = deque()
        self._current: Segment | None = None
        self._pos = 0
        self.events: queue.SimpleQueue[PlaybackEvent | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        """Between the synthesis thread's ``put``, the bus loop's ``cut`` and the audio
        thread's ``fill`` (held for a few list operations only)."""
        self._cut_turns: dict[str, None] = {}
        """Turns cut off (an ordered set, bounded): their later segments are dropped."""
        self._cuts: list[tuple[object, int]] = []
        """Cuts the audio thread has still to carry out: (token, fade length in samples)."""
        self._mark: tuple[float, int, int] | None = None
        """When the current segment's byte ``[1]`` reaches the device (epoch seconds), at
        ``[2]`` samples a second: where :meth:`rewind` finds the sample being heard."""

    def put(self, segment: Segment) -> None:
        with self._lock:
            if turn_of(segment.tag) in self._cut_turns:
                self.events.put(PlaybackEvent("dropped", segment, time.time()))
                return
            self._segments.append(segment)

    def is_cut(self, turn: str) -> bool:
        return turn in self._cut_turns

    def queued_turns(self) -> set[str]:
        with self._lock:
            segments = [self._current, *self._segments]
        return {t for s in segments if s is not None and (t := turn_of(s.tag)) is not None}

    def cut(self, turns: Collection[str], fade: int, token: object) -> None:
        """Fade out what plays over ``fade`` samples and drop the rest of ``turns``, now and
        later; a ``silenced`` event with ``token`` says when it is done."""
        with self._lock:
            for turn in turns:
                self._cut_turns[turn] = None
            while len(self._cut_turns) > CUT_MEMORY:
                del self._cut_turns[next(iter(self._cut_turns))]
            self._cuts.append((token, fade))

    def rewind(self, now: float) -> float:
        """Take back what of the current segment was handed to the device but has not reached
        it by ``now``, to be played again: the device's buffer was just emptied. Only while
        the audio thread is stopped. Returns the seconds taken back (what an earlier
        segment had left in the buffer is not: it is lost with the buffer)."""
        with self._lock:
            if self._current is None or self._mark is None:
                return 0.0
            at, pos, rate = self._mark
            heard = max(0, pos + 2 * round((now - at) * rate))
            back = max(0, self._pos - heard)
            self._pos -= back
            return back / 2 / rate

    def _carry_out_cuts(self, out: Any, now: float, rate: int) -> int:
        """In the audio thread: the fade into ``out``; returns the bytes written."""
        with self._lock:
            cuts, self._cuts = self._cuts, []
            written = 0
            current = self._current
            if cuts and current is not None and turn_of(current.tag) in self._cut_turns:
                fade = max(fade for _, fade in cuts)
                left = current.pcm[self._pos : self._pos + 2 * fade]
                ramp = np.linspace(1.0, 0.0, len(left) // 2, dtype=np.float32)
                faded = (np.frombuffer(left, dtype="<i2") * ramp).astype("<i2").tobytes()
                written = min(len(faded), len(out))
                out[:written] = faded[:written]
                played = replace(current, pcm=current.pcm[: self._pos + written])
                self.events.put(PlaybackEvent("finished", played, now + written / 2 / rate))
                self._current = self._mark = None
            if cuts:
                kept: deque[Segment] = deque()
                for segment in self._segments:
                    if turn_of(segment.tag) in self._cut_turns:
                        self.events.put(PlaybackEvent("dropped", segment, now))
                    else:
                        kept.append(segment)
                self._segments = kept
            for token, _ in cuts:
                silent = Segment(b"", token)
                self.events.put(PlaybackEvent("silenced", silent, now + written / 2 / rate))
            return written

    def queued_seconds(self, rate: int) -> float:
        """Audio still to play (read from another thread: a hint, not a promise)."""
        current, pos = self._current, self._pos
        left = max(0, len(current.pcm) - pos) if current is not None else 0
        return (left + sum(len(s.pcm) for s in list(self._segments))) / 2 / rate

    def fill(self, out: Any, nbytes: int, rate: int, delay: float = 0.0) -> None:
        """Write ``nbytes`` into ``out``: queued audio, then zeros.

        ``delay``: seconds until ``out``'s first sample reaches the device.
        """
        now = time.time() + delay
        written = self._carry_out_cuts(out, now, rate) if self._cuts else 0
        while written < nbytes:
            if self._current is None:
                if not self._segments:
                    break
                with self._lock:  # (a cut may be taking segments out meanwhile)
                    if not self._segments:
                        break
                    self._current, self._pos = self._segments.popleft(), 0
                if self._current.pcm and not (self._current.yields and self._segments):
                    at = now + written / 2 / rate
                    self.events.put(PlaybackEvent("started", self._current, at))
            if self._current.yields and self._segments:
                self.events.put(PlaybackEvent("finished", self._current, now + written / 2 / rate))
                self._current = None
                continue
            pcm = self._current.pcm
            take = min(nbytes - written, len(pcm) - self._pos)
            self._mark = (now + written / 2 / rate, self._pos, rate)
            out[written : written + take] = pcm[self._pos : self._pos + take]
            written += take
            self._pos += take
            if self._pos >= len(pcm):
                at = now + written / 2 / rate
                self.events.put(PlaybackEvent("finished", self._current, at))
                self._current = None
        if written < nbytes:
            out[written:nbytes] = bytes(nbytes - written)


CUT_MEMORY = 256
"""Cut turns remembered (a turn's last pieces come within seconds of its cut)."""


def turn_of(tag: Any) -> str | None:
    """The turn a segment's tag belongs to: a line, its end, a turn's end (markers of other
    kinds, an export's, belong to none)."""
    line = getattr(tag, "line", None)
    turn = getattr(line if line is not None else tag, "turn", None)
    return turn if isinstance(turn, str) else None
