"""What every STT backend offers, and how it fails."""

from __future__ import annotations

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


class Backend(Protocol):
    name: str

    async def transcribe(self, pcm: bytes, rate: int, usual: str | None = None) -> Recognized:
        """Transcribe PCM16 mono audio; raise SttUnavailable or SttFailed. ``usual``: the
        language the user spoke last, a hint for a word or two that tells little by itself."""
        ...

    async def close(self) -> None: ...
