"""A killed tools service's scratch folders are removed by the next one, and only those."""

from __future__ import annotations

import os
import select
import signal
import subprocess
from pathlib import Path

from services.tools.scratch import remove_stale_scratch, scratch_prefix
from tests.helpers.processes import ROOT
from tests.services.tools.helpers import PYTHON, write_tool


def read_fifo(path: Path, timeout: float = 60.0) -> str:
    """What a writer puts into the FIFO ``path``, waited for with a timeout."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        readable, _, _ = select.select([fd], [], [], timeout)
        assert readable, f"nothing came through {path} in {timeout} s"
        return os.read(fd, 4096).decode()
    finally:
        os.close(fd)


def test_scratch_folders_of_a_killed_service_are_removed_at_start(tmp_path: Path) -> None:
    config = tmp_path / "config"
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    fifo = tmp_path / "scratch.fifo"
    os.mkfifo(fifo)
    write_tool(config, "hold", ["sh", "-c", f'echo "$TMPDIR" > {fifo}; exec sleep 60'])
    service = (
        "import asyncio, sys\n"
        "from tests.services.tools.helpers import make_runner\n"
        "from pathlib import Path\n"
        "asyncio.run(make_runner(Path(sys.argv[1])).run('hold', '{}'))\n"
    )
    env = {**os.environ, "TMPDIR": str(scratch_root)}
    with subprocess.Popen([PYTHON, "-c", service, str(config)], cwd=ROOT, env=env) as killed:
        scratch = Path(read_fifo(fifo).strip())
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=10)
    assert scratch.is_dir() and scratch.parent == scratch_root
    assert scratch.name.startswith(scratch_prefix(killed.pid))
    live = scratch_root / f"{scratch_prefix(os.getpid())}keep"  # a running service's own
    live.mkdir()
    other = scratch_root / "da-tool-unrelated"
    other.mkdir()
    assert remove_stale_scratch(scratch_root) == [scratch]
    assert not scratch.exists() and live.is_dir() and other.is_dir()
