"""What Whisper answers, made fit for the rest of the system: the spoken words (its language
names as ISO codes: ``hearing/stt/languages.py``)."""

from __future__ import annotations

import re

_NOT_SPEECH = re.compile(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*|♪")
"""Whisper's markers for what is not speech: ``[BLANK_AUDIO]``, ``(music)``, ``*laughs*``."""


def spoken_words(text: str) -> str:
    """The words of a transcript without non-speech markers; empty when nothing was said
    (no letter or digit is left, e.g. a lone punctuation mark)."""
    words = " ".join(_NOT_SPEECH.sub(" ", text).split())
    return words if any(ch.isalnum() for ch in words) else ""
