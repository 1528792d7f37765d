"""Rules across keys that a service checks before it starts.

The schema checks each key alone; a rule here needs two keys at once (a host
and a token). The service refuses to start on a problem, and ``config
check`` reports the same problem first, from the same function, so a config
that passes the check starts.
"""

from __future__ import annotations

import ipaddress

from settings.schema import BrainConfig, Config


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def brain_problems(brain: BrainConfig) -> list[str]:
    """Why the brain would refuse to listen as configured."""
    if not is_loopback(brain.host) and not brain.token:
        return [
            f"[brain] host {brain.host!r} is not loopback and no token is set: set [brain] "
            "token (clients then send 'Authorization: Bearer TOKEN'), or use 127.0.0.1"
        ]
    return []


def startup_problems(config: Config) -> list[str]:
    """Every cross-key problem a service of this config would refuse to start on."""
    return brain_problems(config.brain)
