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


def ensure_private_dir(path: Path, own: bool = False) -> Path:
    """Create ``path`` with mode 0700, or check that an existing one is ours and private.

    The folder's mode is what keeps other users off the sockets, so a folder
    the broker did not create is never changed: a shared one (``/tmp``, a
    working directory, another user's) is refused instead of chmodded under
    whoever else uses it. ``own`` marks the broker's default folder, whose
    read bits it may take away again.
    """
    try:
        path.mkdir(mode=0o700, parents=True)
        created = True
    except FileExistsError:
        created = False
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise EndpointError(f"{path} exists and is not a folder")
    if info.st_uid != os.getuid():
        raise EndpointError(f"{path} belongs to uid {info.st_uid}, not to us ({os.getuid()})")
    mode = stat.S_IMODE(info.st_mode)
    if mode == 0o700:
        return path
    if created or (own and not mode & 0o022):
        os.chmod(path, 0o700)  # umask, or read bits on our own folder: nobody else's business
        return path
    raise EndpointError(
        f"{path} is shared (mode {mode:04o}): the broker keeps its sockets in a folder of its own "
        "with mode 0700 and never changes one it did not create; point [bus] pub and sub into "
        "a folder that does not exist yet (it is created), or leave them empty for the default"
    )


def resolve(
    pub: str = "",
    sub: str = "",
    keys: str = "",
    client: str = "client",
    plain_tcp: bool = False,
    abstract_ipc: bool = False,
) -> Endpoints:
    """The endpoints to use: the configured ones, or the private ipc defaults.

    A TCP endpoint needs CURVE keys in ``keys`` (see :mod:`bus.security`);
    without them it is refused unless ``plain_tcp`` allows it explicitly. An
    abstract ipc endpoint (``ipc://@name``) has no file and so no permissions:
    any local user can connect; it is refused unless ``abstract_ipc`` allows it.
    """
    for endpoint in (pub, sub):
        if is_abstract(endpoint) and not abstract_ipc:
            raise EndpointError(
                f"{endpoint} is an abstract ipc socket, which any local user can connect to: "
                "use a path (or leave [bus] pub and sub empty for the private default), or set "
                "[bus] allow_abstract_ipc = true"
            )
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
    """The socket file of an ``ipc://`` endpoint, else None (also for an abstract one)."""
    if not endpoint.startswith("ipc://") or is_abstract(endpoint):
        return None
    return Path(endpoint[len("ipc://") :])


def is_abstract(endpoint: str) -> bool:
    """``ipc://@name``: a Linux abstract socket, with no file and no permissions."""
    return endpoint.startswith("ipc://@")


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
