"""Resolve ``[voice.*]`` tables to style arrays: check every name, blend by weight."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from services.tts.kokoro.embedded import FALLBACK_VOICE
from services.tts.voices import VoiceError
from settings import Config
from settings.models_catalog import PULL_VOICES
from settings.schema import VoiceConfig, default_voices

log = logging.getLogger(__name__)

_warned: set[str] = set()
"""The ``[voice.*]`` tables whose fallback to the embedded voice was logged already."""

Style = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Voice:
    lang: str
    """Kokoro's language code: ``ja`` goes through the Japanese G2P, others through espeak-ng."""
    style: Style


def blend(styles: Mapping[str, Style], weights: Mapping[str, float]) -> Style:
    """The weighted sum of the style arrays."""
    total = sum(weights.values())
    if abs(total - 1.0) > 0.01:
        log.warning("blend weights %s add up to %g, not 1", dict(weights), total)
    mixed = sum(w * np.asarray(styles[name], dtype=np.float32) for name, w in weights.items())
    return np.asarray(mixed, dtype=np.float32)


def resolve_tables(
    tables: Mapping[str, VoiceConfig],
    styles: Mapping[str, Style],
    names: Collection[str],
    voices_file: str,
    embedded: bool,
) -> dict[str, Voice]:
    """One :class:`Voice` per table, or a :class:`VoiceError` naming the voice that is missing."""
    voices = {}
    for key, table in tables.items():
        weights = table_weights(key, table, names, voices_file, embedded)
        voices[key] = Voice(table.lang, blend(styles, weights))
    return voices


def table_weights(
    key: str, table: VoiceConfig, names: Collection[str], voices_file: str, embedded: bool
) -> Mapping[str, float]:
    """The voices a ``[voice.<key>]`` table speaks with and their weights.

    With the embedded (Japanese-only) voices, a table that is still the built-in
    default speaks with ``jf_alpha`` in its own language; a table the user
    wrote must name voices the file has. ``desktop-assistant doctor`` calls
    this too, so it reports exactly what the service would do.
    """
    if not table.blend:
        raise VoiceError(f"[voice.{key}] blend is empty")
    bad = {name: w for name, w in table.blend.items() if w < 0}
    if bad:
        raise VoiceError(f"[voice.{key}] blend has negative weights: {bad}")
    missing = [name for name in table.blend if name not in names]
    if not missing:
        return table.blend
    if embedded and default_voices().get(key) == table:
        if key not in _warned:  # once: doctor and config check resolve the tables again
            _warned.add(key)
            log.warning("[voice.%s] voices %s are not installed: speaking with the embedded "
                        "%s (%s)", key, missing, FALLBACK_VOICE, PULL_VOICES)
        return {FALLBACK_VOICE: 1.0}
    raise VoiceError(
        f"[voice.{key}] names voice {missing[0]!r}, which {voices_file} does not have "
        f"(it has: {', '.join(sorted(names))})"
    )


def voice_problems(config: Config) -> list[str]:
    """The start-up check of every ``[voice.*]`` table against the voices file, for
    ``config check``: the service refuses to start on the same :class:`VoiceError`."""
    from services.tts.kokoro.embedded import voices_file

    path, embedded = voices_file(config.kokoro.voices)
    try:
        with np.load(path) as archive:
            names = set(archive.files)
    except Exception as exc:  # a corrupt file: numpy's and zipfile's errors vary
        return [f"[kokoro] voices {str(path)!r}: cannot read: {exc}"]
    problems = []
    for key, table in config.voice.items():
        try:
            table_weights(key, table, names, str(path), embedded)
        except VoiceError as exc:
            problems.append(str(exc))
    return problems
