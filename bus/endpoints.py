"""Where the broker listens: ipc sockets in a private folder unless the config says otherwise."""

from __future__ import annotations

import errno
import os
import socket
import stat
from dataclasses import dataclass
from pathlib import Path

from bus.security import CurveKeys, SecurityError

IPC_PATH_MAX = 107


class EndpointError(Exception):
    """An endpoint that cannot be used safely; the message says why."""


@dataclass(frozen=True)
class Endpoints:
    pub: str
    """Where publishers connect (the broker's XSUB side)."""
    sub: str
    """Where subscribers connect (the broker's XPUB side)."""
    curve: CurveKeys | None = None
    """Keys for the TCP endpoints; None for ipc or explicitly allowed plain TCP."""

    def secured(self, endpoint: str) -> bool:
        return self.curve is not None and endpoint.startswith("tcp://")


def runtime_dir() -> Path:
    """The private folder for ipc sockets: ``$XDG_RUNTIME_DIR/desktop-assistant``.

    Without ``XDG_RUNTIME_DIR`` (a cron job, a bare container), a per-user
    folder under the temp dir, checked to be ours and private.
    """
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        return Path(base) / "desktop-assistant"
    tmp = os.environ.get("TMPDIR", "/tmp")
    return Path(tmp) / f"desktop-assistant-{os.getuid()}"


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` with mode 0700, or check that an existing one is ours and private."""
    try:
        path.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise EndpointError(f"{path} exists and is not a folder")
    if info.st_uid != os.getuid():
        raise EndpointError(f"{path} belongs to uid {info.st_uid}, not to us ({os.getuid()})")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def resolve(
    pub: str = "", sub: str = "", keys: str = "", client: str = "client", plain_tcp: bool = False
) -> Endpoints:
    """The endpoints to use: the configured ones, or the private ipc defaults.

    A TCP endpoint needs CURVE keys in ``keys`` (see :mod:`bus.security`);
    without them it is refused unless ``plain_tcp`` allows it explicitly.
    """
    curve = None
    if any(e.startswith("tcp://") for e in (pub, sub)):
        folder = Path(keys) if keys else None
        if folder is not None and (folder / "server.key").is_file():
            curve = CurveKeys(folder, client)
            try:
                curve.validate()
            except SecurityError as exc:
                raise EndpointError(str(exc)) from None
        elif not plain_tcp:
            raise EndpointError(
                f"TCP endpoint without CURVE keys in {keys or '(no [bus] keys)'}: run "
                "`desktop-assistant keys init`, or set [bus] plain_tcp = true to allow "
                "unencrypted, unauthenticated TCP"
            )
    if not pub or not sub:
        folder = runtime_dir()
        pub = pub or f"ipc://{folder}/pub.sock"
        sub = sub or f"ipc://{folder}/sub.sock"
    for endpoint in (pub, sub):
        path = ipc_path(endpoint)
        if path is not None and len(str(path)) > IPC_PATH_MAX:
            raise EndpointError(f"ipc path longer than {IPC_PATH_MAX} characters: {path}")
    return Endpoints(pub=pub, sub=sub, curve=curve)


def ipc_path(endpoint: str) -> Path | None:
    """The socket file of an ``ipc://`` endpoint, else None."""
    return Path(endpoint[len("ipc://") :]) if endpoint.startswith("ipc://") else None


def ipc_is_live(path: Path) -> bool:
    """True when something accepts connections on the Unix socket ``path``."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError as exc:
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT, errno.ENOTSOCK):
            return False
        raise
    finally:
        probe.close()
    return True
