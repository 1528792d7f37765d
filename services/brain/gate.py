"""Who may use the brain without a token: its own user, through a loopback name.

With ``[brain] token`` set, the token decides (every route wants it, from
anywhere the brain listens). Without one, the brain listens on loopback only,
and a request is refused unless
- its ``Host`` is a loopback name, ``[brain] host`` or one of
  ``[brain] allowed_hosts`` (421): a web page the user opened cannot reach
  the brain by pointing a name of its own at 127.0.0.1 (DNS rebinding), and
- it comes from a socket of the user the brain runs as (403): another user
  of the machine reaches loopback too, yet may not run tools as this one
  (the bus refuses other users the same way, by its folder's permissions).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from network.peers import is_loopback_peer, other_user
from services.brain.limits import refuse

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def host_names(host: str, allowed: Iterable[str]) -> frozenset[str]:
    """The names a ``Host`` header may carry: loopback ones, the configured host, the list."""
    names = {*LOOPBACK_NAMES, *allowed}
    if host not in ("0.0.0.0", "::", ""):
        names.add(f"[{host}]" if ":" in host else host)
    return frozenset(name.lower().rstrip(".") for name in names)


def host_of(header: str) -> str:
    """``Host`` without its port, lower case: ``[::1]:8183`` -> ``[::1]``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header.partition("]")[0] + "]"
    return header.partition(":")[0].rstrip(".")


class Gate:
    """Refuse tokenless requests from other users (403) or through foreign names (421)."""

    def __init__(self, app: ASGIApp, token: str, names: frozenset[str]) -> None:
        self.app = app
        self.token = token
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.token:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = host_of(headers.get(b"host", b"").decode("latin-1"))
        if host not in self.names:
            shown = ", ".join(sorted(self.names))
            await refuse(
                send,
                421,
                f"Host {host!r} is not a name of this brain ({shown}); "
                "add it to [brain] allowed_hosts if it is yours",
            )
            return
        problem = self._stranger(scope)
        if problem:
            log.warning("refused %s %s: %s", scope["method"], scope["path"], problem)
            await refuse(
                send,
                403,
                f"{problem}: only the assistant's own user, or a client "
                "with the token ([brain] token), may use the brain",
            )
            return
        await self.app(scope, receive, send)

    def _stranger(self, scope: Scope) -> str:
        """Why the client is not the assistant's own user; empty when it is."""
        client, server = scope.get("client"), scope.get("server")
        if not client or not server or not is_loopback_peer(client[0]):
            return f"a connection from {client[0] if client else 'an unknown address'}"
        return other_user((client[0], client[1]), server[1])  # the Wyoming server's rule too
