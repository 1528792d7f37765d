"""The application's own playback volume: a factor from 0.0 to 2.0, saved across restarts."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path

from settings.state import state_dir, write_atomic

log = logging.getLogger(__name__)

MIN_VOLUME = 0.0
MAX_VOLUME = 2.0
STEP = 0.1


def clamp(value: float) -> float:
    # Rounded so that ten steps of 0.1 land exactly on 1.0, not 0.9999999.
    return round(min(MAX_VOLUME, max(MIN_VOLUME, value)), 2)


def state_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/desktop-assistant/volume.json`` (default ``~/.local/state``)."""
    return state_dir(environ) / "volume.json"


class VolumeStore:
    """The state file: JSON ``{"volume": 0.8}``, replaced atomically on every change."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> float | None:
        """The saved volume, or None when there is none or it is unreadable (logged)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            value = data["volume"]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"volume is a {type(value).__name__}, not a number")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring the saved volume in %s: %s", self.path, exc)
            return None
        return clamp(float(value))

    def save(self, value: float) -> None:
        """Replace the state file atomically (never half-written, even after a power cut)."""
        try:
            write_atomic(self.path, json.dumps({"volume": value}).encode())
        except OSError as exc:
            log.error("could not save the volume to %s: %s", self.path, exc)


class Volume:
    """The current factor; changed from the bus loop, read by the synthesis thread."""

    def __init__(self, initial: float, store: VolumeStore | None = None) -> None:
        saved = store.load() if store is not None else None
        self._value = clamp(initial if saved is None else saved)
        self._store = store
        self._lock = threading.Lock()

    @property
    def value(self) -> float:
        with self._lock:
            return self._value

    def set(self, value: float) -> bool:
        """Set (clamped); True when the value changed (and was saved)."""
        with self._lock:
            new = clamp(value)
            if new == self._value:
                return False
            self._value = new
        if self._store is not None:
            self._store.save(new)
        return True

    def step(self, direction: str) -> bool:
        """One step ``up`` or ``down``; False when clamping meant nothing changed."""
        delta = STEP if direction == "up" else -STEP
        return self.set(self.value + delta)
