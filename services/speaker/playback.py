"""The playback queue: segments of PCM16 in order, pulled by the audio callback."""

from __future__ import annotations

import queue
import time
from collections import deque
from dataclasses import dataclass
from typing import Any


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
    """``started`` (first sample of a non-empty segment) or ``finished``."""
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

    def put(self, segment: Segment) -> None:
        self._segments.append(segment)

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
        written = 0
        while written < nbytes:
            if self._current is None:
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
            out[written : written + take] = pcm[self._pos : self._pos + take]
            written += take
            self._pos += take
            if self._pos >= len(pcm):
                at = now + written / 2 / rate
                self.events.put(PlaybackEvent("finished", self._current, at))
                self._current = None
        if written < nbytes:
            out[written:nbytes] = bytes(nbytes - written)
