"""Client actions of a voice turn: ``adjust_volume`` and its override phrases."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from services.speaker.volume import Volume

log = logging.getLogger(__name__)

CANNOT_GO = {
    "ja": {"up": "これ以上大きくできません", "down": "これ以上小さくできません"},
    "en": {"up": "I can't go any louder.", "down": "I can't go any quieter."},
    "it": {
        "up": "Non posso alzare di più il volume.",
        "down": "Non posso abbassare di più il volume.",
    },
}
"""What is said instead of the model's words when a volume step changed nothing."""

FALLBACK_LANG = "en"


def cannot_go(direction: str, lang: str) -> str:
    """The override phrase for ``direction`` in ``lang`` (``ja-JP`` → ``ja``; else English)."""
    phrases = CANNOT_GO.get(lang.split("-")[0].lower(), CANNOT_GO[FALLBACK_LANG])
    return phrases[direction]


def apply_controls(
    actions: Iterable[Any], volume: Volume, lang: str
) -> tuple[bool, str | None]:
    """Apply each action in order; return (volume changed, override phrase or None).

    Unknown types and bad directions are logged and skipped, never raised: the
    actions come from a language model through the bus.
    """
    changed = False
    override: str | None = None
    for action in actions:
        if not isinstance(action, dict) or action.get("type") != "adjust_volume":
            log.warning("ignoring an unknown control action: %r", action)
            continue
        direction = action.get("direction")
        if direction not in ("up", "down"):
            log.warning("ignoring adjust_volume with a bad direction: %r", action)
            continue
        if volume.step(direction):
            changed = True
        else:  # the model cannot know the volume: at a limit its words would be wrong
            override = cannot_go(direction, lang)
    return changed, override
