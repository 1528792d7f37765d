"""The assistant's timers: its own state, like the volume, saved so that they survive a restart.

The dialogue owns them (it hears "set a timer" and says that one is done); the file
``timers.json`` in the state folder is replaced atomically on every change. A timer
stays in the file until its announcement has been played, so a timer that ended
while the dialogue or the speaker was down is announced once both are back.
Times are wall-clock (epoch) times: a restart must not restart the countdown.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from bus.message import new_id
from settings.state import write_atomic

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Timer:
    id: str
    seconds: float
    """How long it was set for."""
    ends: float
    """Epoch time it rings."""
    lang: str
    """The language it was set in: its announcement's."""

    def left(self, now: float) -> float:
        return max(0.0, self.ends - now)


class Timers:
    def __init__(
        self,
        path: Path | None,
        ring: Callable[[Timer], Awaitable[None]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self._ring = ring
        """Announces a timer that ended; returns once the announcement has been played."""
        self._clock = clock
        self._timers: dict[str, Timer] = {t.id: t for t in self._load()}
        self._changed = asyncio.Event()

    def start(self, seconds: float, lang: str) -> Timer:
        timer = Timer(new_id(), seconds, self._clock() + seconds, lang)
        self._timers[timer.id] = timer
        self._changed_now()
        return timer

    def cancel(self) -> int:
        """Cancel every timer still counting; how many there were."""
        now = self._clock()
        counting = [t.id for t in self._timers.values() if t.ends > now]
        for timer_id in counting:
            del self._timers[timer_id]
        if counting:
            self._changed_now()
        return len(counting)

    def counting(self) -> list[Timer]:
        """Timers not yet ended, the soonest first."""
        now = self._clock()
        return sorted((t for t in self._timers.values() if t.ends > now), key=lambda t: t.ends)

    async def run(self) -> None:
        """Ring each timer when it ends (at once for those that ended while we were down)."""
        while True:
            self._changed.clear()
            due = sorted(self._timers.values(), key=lambda t: t.ends)
            wait = due[0].ends - self._clock() if due else None
            if wait is not None and wait <= 0:
                await self._ring(due[0])
                if self._timers.pop(due[0].id, None) is not None:
                    self._save()
                continue
            try:
                await asyncio.wait_for(self._changed.wait(), wait)
            except TimeoutError:
                pass

    def _changed_now(self) -> None:
        self._save()
        self._changed.set()

    def _load(self) -> list[Timer]:
        if self.path is None:
            return []
        try:
            return [Timer(**entry) for entry in json.loads(self.path.read_text("utf-8"))]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError) as exc:
            log.warning("ignoring the saved timers in %s: %s", self.path, exc)
            return []

    def _save(self) -> None:
        if self.path is None:
            return
        data = json.dumps([asdict(t) for t in self._timers.values()]).encode()
        try:
            write_atomic(self.path, data)
        except OSError as exc:
            log.error("could not save the timers to %s: %s", self.path, exc)
