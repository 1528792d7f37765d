"""The speaker's engines: one registry line each, imported only when chosen.

An engine is a function that builds a :class:`~services.tts.synthesis.Synthesizer`
from the config (loading its model, checking its voices) or raises
:class:`~services.tts.voices.VoiceError`. Kokoro (``services/tts/kokoro/``) is the
default; espeak-ng (``services/tts/espeak.py``) is the light swap. A new engine is
one module and one line here; ``python -m services.tts --engine NAME`` runs it.
Each is named by its module path, so choosing espeak-ng never imports Kokoro.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import cast

from services.tts.synthesis import Synthesizer
from settings import Config

Load = Callable[[Config], Synthesizer]

ENGINES: Mapping[str, str] = {
    "kokoro": "services.tts.kokoro.voice:load_kokoro",
    "espeak": "services.tts.espeak:load_espeak",
}
DEFAULT = "kokoro"


def engine_loader(name: str) -> Load:
    """The load function of the engine called ``name`` (a key of :data:`ENGINES`)."""
    module, _, function = ENGINES[name].partition(":")
    return cast(Load, getattr(importlib.import_module(module), function))
