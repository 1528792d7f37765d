"""Which local user is at the other end of a loopback TCP connection (Linux).

The kernel lists every TCP socket in ``/proc/net/tcp`` and ``/proc/net/tcp6``
with its owner's uid. A loopback client's socket is the row whose local
address is the peer address the server sees and whose remote port is the
server's own: that row's uid is the user who connected. The brain's gate and
the Wyoming server both keep loopback to the assistant's own user this way.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import struct
from pathlib import Path

TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))


def is_loopback_peer(ip: str) -> bool:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def peer_uid(peer: tuple[str, int], server_port: int) -> int | None:
    """The uid owning the client socket ``peer`` connected to ``server_port``; None when no
    table lists it (not a local socket, or gone already)."""
    ip, port = peer
    wanted = {f"{address}:{port:04X}" for address in _spellings(ip)}
    suffix = f":{server_port:04X}"
    for table in TABLES:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 7 and fields[1] in wanted and fields[2].endswith(suffix):
                return int(fields[7])
    return None


def other_user(peer: tuple[str, int], server_port: int) -> str:
    """Why a loopback client ``peer`` of ``server_port`` is not the user this process runs
    as ("" when it is, or when the peer is not on loopback)."""
    if not is_loopback_peer(peer[0]):
        return ""
    uid = peer_uid(peer, server_port)
    if uid is None:
        return "a connection whose user cannot be told"
    if uid != os.getuid():
        return f"a connection from another user (uid {uid})"
    return ""


def _spellings(ip: str) -> list[str]:
    """``ip`` as the kernel prints it: 32-bit words in host byte order, in hex; an IPv4
    address also as the IPv4-mapped IPv6 one (a dual-stack client's socket)."""
    address = ipaddress.ip_address(ip)
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    if address.version == 4:
        v4 = socket.inet_aton(str(address))
        v6 = socket.inet_pton(socket.AF_INET6, f"::ffff:{address}")
        return [_words(v4), _words(v6)]
    return [_words(socket.inet_pton(socket.AF_INET6, str(address)))]


def _words(packed: bytes) -> str:
    return "".join(f"{word:08X}" for word in struct.unpack(f"={len(packed) // 4}I", packed))
