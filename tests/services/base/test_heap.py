"""What the C heap holds freed goes back to the system once a model is loaded."""

from __future__ import annotations

import ctypes
from pathlib import Path

from services.base.heap import give_back_freed_memory

CHUNK = 64 * 1024
"""Below glibc's mmap threshold: freed chunks stay in the heap, as a loader's do."""


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_freed_heap_memory_leaves_the_rss() -> None:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    chunks = [libc.malloc(CHUNK) for _ in range(1600)]  # 100 MB
    for chunk in chunks:
        ctypes.memset(chunk, 1, CHUNK)  # touched: in the RSS
    for chunk in chunks[:-1]:
        libc.free(chunk)  # the last one, at the heap's top, keeps glibc from trimming itself
    held = rss_mb()
    give_back_freed_memory()
    assert held - rss_mb() > 80
    libc.free(chunks[-1])
