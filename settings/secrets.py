"""Keep secrets out of logs, the bus and error messages: ``[env]`` values, passwords in URLs."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

SHORTEST_SECRET = 8
"""``[env]`` values shorter than this are not hidden (``en``, ``metric``: no secret, and
hiding them would garble ordinary words)."""


def safe_url(url: str) -> str:
    """``url`` with any password (and user name) replaced by ``***``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "<unparsable URL>" if "@" in url else url
    if parts.password is None and parts.username is None:
        return url
    netloc = f"***@{host or ''}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class Redactor:
    """Replaces each ``[env]`` value (of at least ``SHORTEST_SECRET`` characters) by
    ``[env NAME]``, longest first, so that no part of a secret is left behind."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.values = sorted(
            ((value, name) for name, value in env.items() if len(value) >= SHORTEST_SECRET),
            key=lambda pair: -len(pair[0]),
        )

    def __call__(self, text: str) -> str:
        for value, name in self.values:
            if value in text:
                text = text.replace(value, f"[env {name}]")
        return text
