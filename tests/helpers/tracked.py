"""The files git tracks, which is what a fresh clone has, and those about to be added (new,
not ignored): the tree-wide checks read these, so a new module is checked before its commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.processes import ROOT


def tracked_files(*patterns: str) -> list[Path]:
    """Tracked and new (untracked, not ignored) files matching the git pathspecs (all when
    none), that exist in the tree now."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *patterns],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]
