"""One copy of each service per config folder: a lock file that the kernel lets go of.

Two copies of one service on one bus both answer (honcho and systemd both running, or
a copy started by hand beside the supervised one): tools run twice, replies arrive twice.
Each service takes an exclusive ``flock`` on ``<state>/locks/NAME-HASH.lock`` (HASH: of the
resolved config folder) and writes its pid in; a second copy finds it held and refuses to
start, naming that pid. The kernel drops the lock when its holder dies, even by SIGKILL,
so a crash never leaves a lock that blocks the next start.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

PID_BYTES = 32

_held: list[int] = []
"""The descriptors of this process's locks: open until the process ends."""


class AlreadyRunning(Exception):
    """Another process holds the lock of this service and config folder."""


def lock_path(name: str, config_folder: Path, state: Path) -> Path:
    digest = hashlib.sha256(str(config_folder.resolve()).encode()).hexdigest()[:16]
    return state / "locks" / f"{name}-{digest}.lock"


def hold(name: str, config_folder: Path, state: Path) -> Path:
    """Take the lock of ``name`` for ``config_folder`` for the rest of the process's life;
    :class:`AlreadyRunning` says which pid holds it."""
    path = lock_path(name, config_folder, state)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, PID_BYTES).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise AlreadyRunning(
            f"{name}: another copy is running already for the config folder {config_folder} "
            f"(pid {holder}; lock {path}): two copies would both answer. Stop that one first "
            "(honcho and systemd both running? systemctl --user stop, or Ctrl-C honcho)"
        ) from None
    except OSError:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    _held.append(fd)
    return path


def release_all() -> None:
    """Let go of this process's locks (for a test that runs a service in-process)."""
    while _held:
        with contextlib.suppress(OSError):
            os.close(_held.pop())
