"""Find, read, merge and validate the config folder."""

from __future__ import annotations

import difflib
import os
import stat
import tomllib
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from settings.schema import Config

ENV_VAR = "DESKTOP_ASSISTANT_CONFIG"


class ConfigError(Exception):
    """The config folder is invalid; the message names the file, table and key."""


def config_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--config DIR``, else ``$DESKTOP_ASSISTANT_CONFIG``, else the XDG location."""
    if explicit:
        return Path(explicit)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "desktop-assistant"


def load_config(folder: str | os.PathLike[str] | None = None) -> tuple[Config, Path]:
    """The effective config (defaults merged key by key under the file) and its folder."""
    root = config_dir(folder)
    path = root / "config.toml"
    raw: dict[str, Any] = {}
    if path.is_file():
        raw = read_toml(path)
    elif path.exists():
        raise ConfigError(f"{path}: not a regular file")
    merged = _merge(Config().model_dump(), raw)
    bus = merged.get("bus")
    if isinstance(bus, dict) and bus.get("keys") == "":
        bus["keys"] = str(root / "keys")  # relative to the folder in use, not the XDG one
    try:
        return Config.model_validate(merged), root
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, path)) from None


MAX_FILE = 1024 * 1024
"""Largest config or tool file read: a link to ``/dev/zero`` must not fill the memory."""


def read_regular(path: Path, limit: int = MAX_FILE) -> bytes:
    """A regular file's bytes (at most ``limit``), or ConfigError: a FIFO, a device or a
    folder is refused without reading, so that none can hang or flood the reader."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{path}: not a regular file")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(f"{path}: larger than {limit} bytes")
    return data


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's tables, or ConfigError naming the file and what is wrong with it."""
    try:
        return tomllib.loads(read_regular(path).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None
    except ValueError as exc:  # tomllib lets int()'s digit limit through
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def describe_errors(exc: ValidationError, path: Path) -> str:
    """One line per problem: ``file: [table] key: what is wrong``."""
    lines = []
    for err in exc.errors():
        loc = [str(part) for part in err["loc"]]
        key = loc[-1] if loc else "?"
        table = f"[{'.'.join(loc[:-1])}] " if len(loc) > 1 else "top level, "
        if err["type"] == "extra_forbidden":
            what = f"unknown key {key!r}{did_you_mean(key, known_keys(loc[:-1]))}"
        elif err["type"] == "missing":
            what = f"missing required key {key!r}"
        elif err["type"] == "value_error":
            what = f"key {key!r}: {err['msg'].removeprefix('Value error, ')}"
        else:
            expected = err["msg"].lower().replace("input should be", "expected")
            value = err.get("input")
            # a wrong value is shown (a range, a choice); a wrong type is named, not dumped
            got = repr(value) if err["type"] in SHOWS_VALUE else type(value).__name__
            what = f"key {key!r}: {expected} (got {got})"
        lines.append(f"{path}: {table}{what}")
    return "\n".join(lines)


SHOWS_VALUE = {
    "greater_than", "greater_than_equal", "less_than", "less_than_equal", "literal_error",
}


def known_keys(loc: list[str], model: type[BaseModel] = Config) -> list[str]:
    """The keys a table at ``loc`` (``["voice", "en"]``...) accepts; [] when not a table."""
    kind: Any = model
    for part in loc:
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            field = kind.model_fields.get(part)
            kind = field.annotation if field else None
        elif get_origin(kind) is dict:
            kind = get_args(kind)[1]  # [voice.<name>]: any name, then the voice's table
        else:
            return []
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return list(kind.model_fields)
    return []


def did_you_mean(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


VALUE_MAPS = {"blend"}
"""Keys whose table is one value (a voice blend), replaced whole, never merged."""


def _merge(defaults: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Deep merge: tables merge key by key; any other value replaces the default."""
    out = dict(defaults)
    for key, value in override.items():
        if key in VALUE_MAPS:
            out[key] = value
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out
