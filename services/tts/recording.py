"""``--wav-out DIR``: each turn's played audio, written to ``DIR/<turn>.wav`` when it ends."""

from __future__ import annotations

import logging
import os
import re
import tempfile
import wave
from pathlib import Path

log = logging.getLogger(__name__)

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


class TurnRecorder:
    def __init__(self, folder: Path, rate: int) -> None:
        self.folder = folder
        self.rate = rate
        self._turns: dict[str, bytearray] = {}

    def add(self, turn: str, pcm: bytes) -> None:
        self._turns.setdefault(turn, bytearray()).extend(pcm)

    def write(self, turn: str) -> Path | None:
        """Write what was played of ``turn`` (atomically) and forget it."""
        pcm = self._turns.pop(turn, None)
        if not pcm:
            return None
        # The turn id comes from the bus: it must not choose where the file goes.
        path = self.folder / f"{_SAFE.sub('_', turn).lstrip('.')[:80] or 'turn'}.wav"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".turn-", suffix=".wav", dir=self.folder)
            with os.fdopen(fd, "wb") as raw, wave.open(raw, "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(self.rate)
                out.writeframes(bytes(pcm))
            os.replace(tmp, path)
        except OSError as exc:
            log.error("could not write %s: %s", path, exc)
            return None
        return path

    def write_all(self) -> None:
        for turn in list(self._turns):
            self.write(turn)
