"""Scratch folders of tool runs (``$TMPDIR/da-tool-PID-*``), and removing those a killed
service left behind.

A run's folder is removed when the run ends; a service killed outright
(``kill -9``, a crash) cannot, so the next one removes, at start, every
folder whose name carries the pid of a process that no longer exists and
that belongs to our uid. A live pid's folders are left alone: they may be
another running copy's.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

PREFIX = "da-tool-"
OWN_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-")


def scratch_prefix(pid: int) -> str:
    """The name prefix of the scratch folders of the service with this pid."""
    return f"{PREFIX}{pid}-"


def remove_stale_scratch(folder: Path | None = None) -> list[Path]:
    """Remove the scratch folders of dead services of ours; returns those removed."""
    removed = []
    root = Path(folder or tempfile.gettempdir())
    for path in root.glob(f"{PREFIX}*"):
        match = OWN_NAME.match(path.name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue  # a link or another user's: never ours to remove
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    if removed:
        log.info("removed %d scratch folder(s) of tool runs a stopped service left", len(removed))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: its folders are not ours either
    return True
