"""The listening TCP socket of a service that serves the network (the brain's HTTP API, the
Wyoming server): made before the service reports ready, so a port in use is a clear error
at start, not a failure later."""

from __future__ import annotations

import socket


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket; OSError (with the address in its message) if it cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise OSError(f"cannot listen on {host}:{port}: {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.setblocking(False)
    return sock
