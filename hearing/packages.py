"""Files inside installed packages, found without running the packages: the mic needs a
model file or a numpy-only module from packages whose ``__init__`` would load a runtime
it never uses (pipecat's framework; faster-whisper's CTranslate2, PyAV and tokenizers:
25 MB of RSS)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_file(package: str, relative: Path) -> Path | None:
    """``relative`` inside the installed ``package``, or None when either is missing."""
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / relative
        if path.is_file():
            return path
    return None
