"""Client actions of a voice turn: ``adjust_volume`` and its override phrases."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from services.base.phrases import cannot_go
from speaking.volume import Volume

log = logging.getLogger(__name__)

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
