"""Handing memory the C heap holds freed back to the system, once a model is loaded."""

from __future__ import annotations

import ctypes
import functools
from typing import Any


def give_back_freed_memory() -> None:
    """glibc keeps what a model's loader freed (parsed files, temporary copies, the first
    runs' buffers) for reuse, and it stays in the process's RSS; ``malloc_trim`` returns
    it: 40 MB in the STT after Whisper base loads and warms up. Another C library (musl,
    macOS): nothing to do."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


@functools.cache
def _glibc() -> Any:
    process = ctypes.CDLL(None)  # the symbols already loaded: the C library's among them
    return process if hasattr(process, "malloc_trim") else None
