"""Keep secrets out of logs, the bus and error messages: ``[env]`` values, passwords in URLs."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from urllib.parse import urlsplit, urlunsplit

SHORTEST_SECRET = 4
"""Secret values shorter than this are not hidden: hiding ``en`` would garble ordinary words,
and a secret that short protects nothing anyway."""
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|PWD|AUTH|CREDENTIAL|PRIVATE|COOKIE", re.I)
"""An ``[env]`` name containing one of these holds a secret (``API_KEY``, ``DB_PASSWORD``);
other values (``TZ``, ``CALENDAR_DIR``) are personal settings the model may see."""


def is_secret(name: str, marked: Collection[str] = ()) -> bool:
    """Whether the ``[env]`` value ``name`` is hidden: its name says so, or the config does."""
    return name in marked or SECRET_NAME.search(name) is not None


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
    """Replaces each secret ``[env]`` value (see ``is_secret``; at least ``SHORTEST_SECRET``
    characters) by ``[env NAME]``, longest first, so that no part of a secret is left behind.

    ``marked`` are the names ``[tools] secret_env`` lists: secrets whatever their name."""

    def __init__(self, env: Mapping[str, str], marked: Collection[str] = ()) -> None:
        self.values = sorted(
            (
                (value, name)
                for name, value in env.items()
                if len(value) >= SHORTEST_SECRET and is_secret(name, marked)
            ),
            key=lambda pair: -len(pair[0]),
        )

    def __call__(self, text: str) -> str:
        for value, name in self.values:
            if value in text:
                text = text.replace(value, f"[env {name}]")
        return text
