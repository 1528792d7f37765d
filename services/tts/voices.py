"""Which ``[voice.<lang>]`` table speaks a turn: the turn's language, else the default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

V = TypeVar("V")


class VoiceError(Exception):
    """A voice table that cannot be spoken (a start-up error that names it)."""


class LanguageUnavailable(Exception):
    """A language the voice cannot speak because a part it needs is not installed (Japanese
    without pyopenjtalk-plus): the service starts and speaks the other languages, and a turn
    in this one gets one error naming the fix, not one per piece."""


def voice_for(voices: Mapping[str, V], lang: str, default_lang: str) -> V:
    """The table for ``lang`` (``en-US`` finds ``en``), else ``default_lang``'s, else the first."""
    for key in (lang, lang.split("-")[0].lower(), default_lang):
        if key in voices:
            return voices[key]
    if not voices:
        raise VoiceError("no [voice.*] table is configured")
    return next(iter(voices.values()))
