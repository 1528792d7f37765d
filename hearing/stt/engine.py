"""What every STT backend offers, and how it fails."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Recognized:
    text: str
    """The transcript as the engine gave it, stripped."""
    lang: str | None
    """ISO 639-1 code of the language detected, None when the engine named none we know."""


class SttUnavailable(Exception):
    """The engine cannot be reached, is still loading, or took too long."""


class SttFailed(Exception):
    """The engine answered, with an error."""


class Superseded(Exception):
    """The run gave up: its text was no longer wanted (a newer utterance of the turn came)."""


Stop = threading.Event
"""Set when a run's text is no longer wanted: the backend gives up at its next step."""


def give_up_if(stop: Stop | None) -> None:
    """Raise :class:`Superseded` if ``stop`` is set: called between a run's steps, so a stale
    guess holds the one engine for at most the step under way, not for a whole-window
    fallback (0.6-1.8 s on 2 cores, issue 29)."""
    if stop is not None and stop.is_set():
        raise Superseded("a newer utterance of the turn superseded this run")


class Backend(Protocol):
    """An opened backend (``hearing/stt/backends.py`` opens the one the config leads to)."""

    async def transcribe(
        self, pcm: bytes, rate: int, usual: str | None = None, stop: Stop | None = None
    ) -> Recognized:
        """Transcribe PCM16 mono audio; raise SttUnavailable or SttFailed. ``usual``: the
        language the user spoke last, a hint for a word or two that tells little by itself.
        ``stop``: once set, give up at the next step with :class:`Superseded`."""
        ...

    async def close(self) -> None: ...
