"""The configuration as the user is shown it (``config show``, the page): secrets masked,
and where each value came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from settings.apikey import shown
from settings.loader import read_toml
from settings.schema import Config
from settings.secrets import is_secret, safe_url

MASK = "***"
DEFAULT = "default"


def masked(config: Config) -> dict[str, Any]:
    """``config`` as plain data, with every secret it holds replaced by ``***``: the LLM's
    key and a password in its URL, the brain's token, secret ``[env]`` values."""
    data = config.model_dump()
    data["llm"] = safe_url(config.llm)
    data["dialogue"]["api_key"] = shown(config.dialogue.api_key)
    data["brain"]["token"] = MASK if config.brain.token else ""
    marked = config.tools.secret_env
    data["env"] = {k: MASK if is_secret(k, marked) else v for k, v in config.env.items()}
    for server in data["mcp"].values():
        server["env"] = {k: MASK if is_secret(k) else v for k, v in server["env"].items()}
    return data


def sources(data: dict[str, Any], folder: Path) -> dict[str, str]:
    """Where each value of ``data`` (dotted keys, tables flattened) came from: the file
    that sets it, else ``default``."""
    path = folder / "config.toml"
    written = flatten(read_toml(path)) if path.is_file() else {}
    return {key: str(path) if key in written else DEFAULT for key in flatten(data)}


def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"brain": {"port": 1}}`` -> ``{"brain.port": 1}``; lists and blends stay whole."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value and key != "blend":
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat
