"""``[dialogue] api_key``: the LLM server's key, written in the file or read from the environment.

A server started with ``vllm --api-key``, a LiteLLM proxy or a hosted endpoint
answers 401 without ``Authorization: Bearer KEY``. The key is either written
as is, or ``env:NAME`` so that it stays out of ``config.toml`` (a systemd
unit's ``Environment=``, a shell profile). It is never logged, and ``config
show`` prints ``***`` in its place.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

FROM_ENV = "env:"
"""The prefix of a key read from the environment variable named after it."""
KEY = "[dialogue] api_key"
"""How messages name the key, so the user knows what to set."""


class ApiKeyError(ValueError):
    """The key names an environment variable that is not set."""


def api_key(value: str, environ: Mapping[str, str] | None = None) -> str:
    """The key to send ('' for none): ``value`` itself, or the variable ``env:NAME`` names."""
    if not value.startswith(FROM_ENV):
        return value
    name = value.removeprefix(FROM_ENV)
    key = (os.environ if environ is None else environ).get(name, "")
    if not key:
        raise ApiKeyError(
            f"{KEY} = {value!r} reads the environment variable {name}, which is not set: "
            f"export {name} for the assistant's processes, or write the key itself in api_key"
        )
    return key


def shown(value: str) -> str:
    """``value`` as ``config show`` prints it: a key written in the file as ``***``."""
    return value if not value or value.startswith(FROM_ENV) else "***"


def bearer(key: str) -> dict[str, str]:
    """The request headers that carry ``key`` (none for an empty key)."""
    return {"Authorization": f"Bearer {key}"} if key else {}


def refused(status: int, sent: bool) -> str:
    """What to do about a 401/403 from the LLM server, or '' for another status."""
    if status not in (401, 403):
        return ""
    if sent:
        return f"the server refused the key of {KEY}: check it"
    return f"the server wants an API key: set {KEY} (the key, or env:NAME to read it from NAME)"
