"""The voice UI's side of ``adjust_volume``: it owns the volume and applies controls.

The brain only says "up" or "down"; the playback factor lives here, moves in
steps of 0.1 and stays within 0.0-2.0. When clamping means nothing changed,
the model's words ("louder now!") would be wrong, so they are replaced.
Unknown actions and bad directions are logged and ignored, never raised.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

VOLUME_STEP = 0.1
VOLUME_MIN, VOLUME_MAX = 0.0, 2.0
AT_LIMIT = {
    "ja": {"up": "これ以上大きくできません", "down": "これ以上小さくできません"},
    "en": {"up": "It can't go any louder.", "down": "It can't go any quieter."},
    "it": {"up": "Più forte di così non posso.", "down": "Più piano di così non posso."},
}


class VolumeControl:
    def __init__(self, volume: float = 1.0, lang: str = "ja") -> None:
        self.volume = volume
        self.lang = lang

    def apply_control_actions(self, control: list[dict[str, Any]]) -> str | None:
        """Apply the actions; return what to say instead of the reply when clamping stopped one."""
        override: str | None = None
        for action in control:
            if not isinstance(action, dict) or action.get("type") != "adjust_volume":
                log.warning("unknown control action, ignored: %s", action)
                continue
            direction = action.get("direction")
            if direction not in ("up", "down"):
                log.warning("bad direction, ignored: %s", action)
                continue
            step = VOLUME_STEP if direction == "up" else -VOLUME_STEP
            before = self.volume
            # rounded so that ten steps up from 1.0 land on 2.0, not 1.9999999999999998
            after = round(max(VOLUME_MIN, min(VOLUME_MAX, before + step)), 6)
            self.volume = after
            if after == before:
                phrases = AT_LIMIT.get(self.lang, AT_LIMIT["en"])
                override = phrases[direction]
        return override
