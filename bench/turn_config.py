"""The config of a benchmark run: ``--set`` and ``--variant`` changes as config.toml tables."""

from __future__ import annotations

import tomllib
from typing import Any

import tomli_w

Settings = dict[str, dict[str, Any]]
WAKE: Settings = {"listen": {"mode": "wake", "follow_up": 1.0}}
"""What ``--wake`` adds to a variant: the wake word's mode, and a short follow-up window only
so that the mic closes sooner before the next question (which must wait for it)."""


def parse_settings(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["dialogue.speculative=false"]`` → ``{"dialogue": {"speculative": False}}``."""
    tables: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        table, dot, name = key.partition(".")
        if not sep or not dot:
            raise SystemExit(f"--set {item!r}: expected TABLE.KEY=VALUE")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare string
        tables.setdefault(table, {})[name] = value
    return tables


def config_text(window: float, settings: dict[str, dict[str, Any]]) -> str:
    tables = {name: dict(values) for name, values in settings.items()}
    tables.setdefault("vad", {})["silence"] = window
    tables.setdefault("whisper", {}).setdefault("backend", "embedded")
    return tomli_w.dumps(tables)


def parse_variant(text: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """``"before:whisper.window=30,dialogue.speculative=false"`` → its name and settings."""
    name, _, changes = text.partition(":")
    return name, parse_settings([c for c in changes.split(",") if c.strip()])


def merge(*tables: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for settings in tables:
        for table, values in settings.items():
            out.setdefault(table, {}).update(values)
    return out


def with_wake(variants: list[tuple[str, Settings]], wake: bool) -> list[tuple[str, Settings]]:
    """With ``wake``, each variant followed by itself in wake mode (``NAME+wake``): measured
    in turn, the two share the machine's load alike."""
    if not wake:
        return variants
    return [v for name, changes in variants
            for v in ((name, changes), (f"{name}+wake", merge(changes, WAKE)))]
