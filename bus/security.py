"""CURVE encryption and authentication for TCP endpoints (a mic in another room).

ipc endpoints are protected by the 0700 socket folder. A TCP endpoint is
encrypted and authenticated with ZeroMQ's CURVE: the broker has a key
pair and an allow-list of client public keys; each client has its own key
pair and the broker's public key. Key files are those of ``zmq.auth``:

    keys/server.key, keys/server.key_secret    the broker's pair
    keys/<name>.key, keys/<name>.key_secret    a client's pair
    keys/allowed/<name>.key                     public keys the broker accepts

Plain TCP without keys is refused unless ``[bus] plain_tcp = true``.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator

log = logging.getLogger(__name__)

SERVER = "server"


class SecurityError(Exception):
    """Keys missing or unusable; the message says which file and what to run."""


@dataclass(frozen=True)
class CurveKeys:
    folder: Path
    client: str = "client"
    """Which key pair this machine's clients use (``<client>.key_secret``)."""

    @property
    def allowed(self) -> Path:
        return self.folder / "allowed"

    def _load(self, name: str, secret: bool) -> tuple[bytes, bytes | None]:
        path = self.folder / f"{name}.key{'_secret' if secret else ''}"
        if not path.is_file():
            raise SecurityError(f"{path} is missing: run `desktop-assistant keys init`")
        try:
            return zmq.auth.load_certificate(path)
        except (ValueError, OSError) as exc:
            raise SecurityError(f"{path}: not a key file ({exc})") from None

    def validate(self) -> None:
        """Raise SecurityError unless this machine's pair and the server's key load."""
        self._load(self.client, secret=True)
        self._load(SERVER, secret=False)

    def apply_server(self, sock: zmq.Socket) -> None:
        public, secret = self._load(SERVER, secret=True)
        sock.curve_server = True
        sock.curve_publickey = public
        sock.curve_secretkey = secret  # type: ignore[assignment]

    def apply_client(self, sock: zmq.Socket) -> None:
        public, secret = self._load(self.client, secret=True)
        server_public, _ = self._load(SERVER, secret=False)
        sock.curve_publickey = public
        sock.curve_secretkey = secret  # type: ignore[assignment]
        sock.curve_serverkey = server_public

    def start_authenticator(self, ctx: zmq.Context) -> ThreadAuthenticator:
        """Accept only clients whose public key is in ``allowed/``."""
        if not self.allowed.is_dir():
            raise SecurityError(f"{self.allowed} is missing: run `desktop-assistant keys init`")
        auth = ThreadAuthenticator(ctx)
        auth.start()
        auth.configure_curve(domain="*", location=str(self.allowed))
        return auth


def create_keys(folder: Path, client: str = "client") -> list[Path]:
    """Create the broker's pair (once) and a client pair ``client``, and allow it."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    (folder / "allowed").mkdir(mode=0o700, exist_ok=True)
    written = []
    if not (folder / f"{SERVER}.key_secret").exists():
        zmq.auth.create_certificates(folder, SERVER)
        written += [folder / f"{SERVER}.key", folder / f"{SERVER}.key_secret"]
    if not (folder / f"{client}.key_secret").exists():
        zmq.auth.create_certificates(folder, client)
        written += [folder / f"{client}.key", folder / f"{client}.key_secret"]
    shutil.copyfile(folder / f"{client}.key", folder / "allowed" / f"{client}.key")
    for path in folder.glob("*.key_secret"):
        path.chmod(0o600)
    return written
