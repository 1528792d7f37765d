"""Speculative audio: a turn's pieces synthesized ahead, kept off the playback queue until the
dialogue's verdict (``Speculation``) releases or drops them.

The synthesis thread puts segments here; the bus loop releases or drops; a
lock keeps the order: what was held plays first, in order, and what the
synthesis thread puts afterwards follows it straight into the playback queue.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from services.tts.playback import PlaybackQueue, Segment


class Hold:
    def __init__(self, playback: PlaybackQueue) -> None:
        self._playback = playback
        self._lock = threading.Lock()
        self._segments: list[Segment] = []
        self.state = "held"
        """``held``, ``released`` or ``dropped``."""
        self.lines: list[Any] = []
        """The turn's lines (``synthesis.Line``) whose audio goes here: once dropped, they
        were never heard, and a later cut's played text must pass over them."""

    def put(self, segment: Segment) -> bool:
        """From the synthesis thread: True when the segment went to the playback queue."""
        with self._lock:
            if self.state == "released":
                self._playback.put(segment)
                return True
            if self.state == "held":
                self._segments.append(segment)
            return False

    @property
    def dropped(self) -> bool:
        return self.state == "dropped"

    def held_seconds(self, rate: int) -> float:
        """Audio waiting here (it will play before anything the synthesis makes next)."""
        with self._lock:
            return sum(len(segment.pcm) for segment in self._segments) / 2 / rate

    def release(self, lead: Sequence[Segment] = ()) -> int:
        """Queue what is held, after ``lead`` (the tone) unless some audio is ready already:
        a tone only fills a wait. Returns the number of segments queued."""
        with self._lock:
            if self.state != "held":
                return 0
            self.state = "released"
            segments = self._segments
            self._segments = []
            if lead and not any(segment.pcm for segment in segments):
                segments[:0] = lead
            for segment in segments:
                self._playback.put(segment)
            return len(segments)

    def drop(self) -> None:
        with self._lock:
            if self.state == "held":
                self.state = "dropped"
                self._segments = []
