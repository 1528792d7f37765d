"""The models ``desktop-assistant models pull`` can fetch, and where pulled models live.

Each file comes from its official source: faster-whisper's CTranslate2 conversions
of OpenAI's Whisper from Systran's Hugging Face repositories, and Kokoro v1.0's
voices file from the kokoro-onnx release. No sha256 is pinned here (``sha256``
stays None): Hugging Face names each large file's sha256 in the ``X-Linked-Etag``
header of its redirect, and the download is checked against that; a file whose
server names no sha256 (GitHub's release assets) is checked against its
Content-Length. Either way the hash of what was written is recorded in the
model's ``SHA256SUMS``. A file with a pinned ``sha256`` is checked against that.

The services find a pulled model by name (``[whisper] embedded_model = "small"``,
the Kokoro voices when ``[kokoro] voices`` names no file), so this module sits in
``settings``, which both the services and the command line import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SOURCE_ENV = "DESKTOP_ASSISTANT_MODELS_URL"
"""Replaces every source's ``scheme://host`` (a mirror, or the tests' local double)."""


@dataclass(frozen=True)
class ModelFile:
    name: str
    url: str
    sha256: str | None = None
    """Pinned hash; None: the server's hash (``X-Linked-Etag``) or its size is checked."""


@dataclass(frozen=True)
class Model:
    name: str
    what: str
    approx_mb: int
    files: tuple[ModelFile, ...]


def _hugging_face(repo: str, *names: str) -> tuple[ModelFile, ...]:
    return tuple(
        ModelFile(name, f"https://huggingface.co/{repo}/resolve/main/{name}") for name in names
    )


WHISPER_FILES = ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt")
KOKORO_VOICES = "kokoro-voices"
VOICES_FILE = "voices-v1.0.bin"

CATALOG: Mapping[str, Model] = {
    model.name: model
    for model in (
        Model(
            KOKORO_VOICES,
            "Kokoro v1.0's 54 voices: English (af_heart, af_bella), Italian (if_sara) and more",
            27,
            (ModelFile(VOICES_FILE, "https://github.com/thewh1teagle/kokoro-onnx/releases/"
                       f"download/model-files-v1.0/{VOICES_FILE}"),),
        ),
        Model("whisper-small", "Whisper small, multilingual, faster-whisper (CTranslate2 "
              "float16): fewer errors than base, slower", 484,
              _hugging_face("Systran/faster-whisper-small", *WHISPER_FILES)),
        Model("whisper-small.en", "Whisper small, English only, faster-whisper", 484,
              _hugging_face("Systran/faster-whisper-small.en", *WHISPER_FILES)),
        Model("whisper-medium", "Whisper medium, multilingual, faster-whisper: for a fast "
              "CPU or a GPU", 1530, _hugging_face("Systran/faster-whisper-medium", *WHISPER_FILES)),
    )
}


def models_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/desktop-assistant/models`` (default ``~/.local/share``)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "desktop-assistant" / "models"


def installed(model: Model, environ: Mapping[str, str] | None = None) -> bool:
    folder = models_dir(environ) / model.name
    return all((folder / f.name).is_file() for f in model.files)


def pulled_whisper(name: str) -> Path | None:
    """The folder of a pulled Whisper model named ``small`` or ``whisper-small``, when the
    name is in the catalog; raises :class:`LookupError` with the pull command when it is
    in the catalog and not pulled."""
    key = name if name.startswith("whisper-") else f"whisper-{name}"
    model = CATALOG.get(key)
    if model is None:
        return None
    if not installed(model):
        raise LookupError(
            f"Whisper model {name!r} is not installed: desktop-assistant models pull {key}"
        )
    return models_dir() / key


def pulled_voices() -> Path | None:
    """Kokoro v1.0's voices file, when it was pulled."""
    path = models_dir() / KOKORO_VOICES / VOICES_FILE
    return path if path.is_file() else None


PULL_VOICES = f"desktop-assistant models pull {KOKORO_VOICES}"
