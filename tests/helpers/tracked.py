"""The files git tracks, which is what a fresh clone has: the tree-wide checks read these."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.processes import ROOT


def tracked_files(*patterns: str) -> list[Path]:
    """Tracked files matching the git pathspecs (all when none), that exist in the tree now."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *patterns],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]
