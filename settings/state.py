"""The state folder `$XDG_STATE_HOME/desktop-assistant`: atomic writes, corrupt files set aside."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/desktop-assistant`` (default ``~/.local/state/desktop-assistant``)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "desktop-assistant"


def write_atomic(path: Path, data: bytes) -> None:
    """Write a temp file beside ``path``, flush it to disk, then rename it over: a crash at
    any moment leaves the old file or the new one, never half of one. OSError on failure."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def set_aside(path: Path) -> Path:
    """Rename a corrupt state file to ``NAME.corrupt-STAMP`` (kept for a look, never read)."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
        n += 1
    os.replace(path, aside)
    return aside
