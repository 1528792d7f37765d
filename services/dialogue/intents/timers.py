"""The assistant's timers and reminders: its own state, like the volume, saved so that they
survive a restart. A reminder is a timer with words (``text``): it rings at a time of day
with what to be reminded of, and "cancel the timer" or "how long is left" leave it alone.

The dialogue owns them (it hears "set a timer" and says that one is done); the file
``timers.json`` in the state folder is replaced atomically on every change. A timer
stays in the file until its announcement has been played, so a timer that ended
while the dialogue or the speaker was down is announced once both are back.
Times are wall-clock (epoch) times: a restart must not restart the countdown.

The file is read as the tool files are (a regular file, at most :data:`MAX_FILE` bytes,
or not at all: a FIFO or a link to ``/dev/zero`` can neither hang nor flood the start),
each entry is checked on its own (a bad one is dropped with a warning, never saved
again), and at most :data:`MAX_TIMERS` are kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bus.message import new_id
from settings.loader import ConfigError, read_regular
from settings.state import write_atomic

log = logging.getLogger(__name__)

MAX_TIMERS = 50
"""Timers and reminders kept at most, ended ones not yet announced included: a person keeps
a handful."""
MAX_TEXT = 200
"""Characters of a reminder's words: a sentence to hear, not a document."""
MAX_FILE = 64 * 1024
"""The largest timers file read: :data:`MAX_TIMERS` entries take about 5 KiB."""
PAST_GRACE = 60.0
"""Seconds a reminder's time may lie in the past and still ring at once (it was said at
10:59:30 for 10:59)."""
MAX_SECONDS = 10_000_000.0
"""The longest timer a saved entry may hold (115 days; the sentences allow about 4)."""


class TimersFull(Exception):
    """:data:`MAX_TIMERS` timers are kept already."""


class _Saved(BaseModel):
    """One entry of the file, as it must be to be kept."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)

    id: str = Field(min_length=1, max_length=64)
    seconds: float = Field(ge=0, le=MAX_SECONDS)
    ends: float
    lang: str = Field(min_length=1, max_length=16)
    text: str = Field("", max_length=MAX_TEXT)


@dataclass(frozen=True)
class Timer:
    id: str
    seconds: float
    """How long it was set for."""
    ends: float
    """Epoch time it rings."""
    lang: str
    """The language it was set in: its announcement's."""
    text: str = ""
    """A reminder's words; empty for a timer."""

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
        """A new timer, saved; :class:`TimersFull` once :data:`MAX_TIMERS` are kept."""
        if len(self._timers) >= MAX_TIMERS:
            raise TimersFull(f"{len(self._timers)} timers are kept already")
        timer = Timer(new_id(), seconds, self._clock() + seconds, lang)
        self._timers[timer.id] = timer
        self._changed_now()
        return timer

    def remind(self, at: float, text: str, lang: str) -> Timer:
        """A new reminder at epoch time ``at``, saved; :class:`TimersFull` as :meth:`start`.
        The caller checked ``text`` (:func:`reminder_problem`)."""
        if len(self._timers) >= MAX_TIMERS:
            raise TimersFull(f"{len(self._timers)} timers and reminders are kept already")
        reminder = Timer(new_id(), max(0.0, at - self._clock()), at, lang, text)
        self._timers[reminder.id] = reminder
        self._changed_now()
        return reminder

    def cancel(self) -> int:
        """Cancel every timer still counting (reminders stay); how many there were."""
        now = self._clock()
        counting = [t.id for t in self._timers.values() if t.ends > now and not t.text]
        for timer_id in counting:
            del self._timers[timer_id]
        if counting:
            self._changed_now()
        return len(counting)

    def counting(self) -> list[Timer]:
        """Timers (not reminders) not yet ended, the soonest first."""
        now = self._clock()
        return sorted((t for t in self._timers.values() if t.ends > now and not t.text),
                      key=lambda t: t.ends)

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
        """The saved timers that are valid, the soonest :data:`MAX_TIMERS` of them; each one
        dropped, and a file that cannot be read at all, is a warning."""
        if self.path is None or not os.path.lexists(self.path):
            return []
        try:
            if self.path.is_dir():  # read_regular would open it, then fail to wrap the fd
                raise ConfigError(f"{self.path}: not a regular file")
            data = json.loads(read_regular(self.path, MAX_FILE))
        except ConfigError as exc:  # not a regular file, too large, unreadable: it names it
            log.warning("ignoring the saved timers: %s", exc)
            return []
        except OSError as exc:
            log.warning("ignoring the saved timers: %s: %s", self.path, exc.strerror or exc)
            return []
        except (ValueError, RecursionError) as exc:  # not JSON (or not UTF-8)
            log.warning("ignoring the saved timers in %s: %s", self.path, exc or "too deep")
            return []
        if not isinstance(data, list):
            log.warning("ignoring the saved timers in %s: not a list", self.path)
            return []
        kept = []
        for number, entry in enumerate(data, 1):
            timer = self._checked(entry)
            if isinstance(timer, str):
                name = f" ({entry['id']})" if isinstance(entry, dict) and "id" in entry else ""
                log.warning("%s: dropped entry %d%s: %s", self.path, number, name, timer)
                continue
            kept.append(timer)
        kept.sort(key=lambda t: t.ends)
        if len(kept) > MAX_TIMERS:
            log.warning(
                "%s: %d timers, the %d ending last dropped (at most %d are kept)",
                self.path, len(kept), len(kept) - MAX_TIMERS, MAX_TIMERS,
            )
        return kept[:MAX_TIMERS]

    def _checked(self, entry: Any) -> Timer | str:
        """One saved entry as a timer, or what is wrong with it."""
        if not isinstance(entry, dict):
            return f"not an object but {type(entry).__name__}"
        try:
            saved = _Saved.model_validate(entry)
        except ValidationError as exc:
            return "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}"
                for e in exc.errors()
            )
        if saved.ends > self._clock() + MAX_SECONDS:
            return f"ends: more than {MAX_SECONDS:,.0f} s from now"
        return Timer(saved.id, saved.seconds, saved.ends, saved.lang, saved.text)

    def _save(self) -> None:
        if self.path is None:
            return
        data = json.dumps([asdict(t) for t in self._timers.values()], ensure_ascii=False).encode()
        try:
            write_atomic(self.path, data)
        except OSError as exc:
            log.error("could not save the timers to %s: %s", self.path, exc)


def reminder_problem(at: float, text: str, now: float) -> str | None:
    """Why a reminder cannot be kept, said to the user; None when it can."""
    if not text.strip():
        return "it has no words: say what to be reminded of"
    if len(text) > MAX_TEXT:
        return f"its words are {len(text)} characters long, more than {MAX_TEXT}"
    if not math.isfinite(at):
        return "its time is not a number"
    if at < now - PAST_GRACE:
        return "its time is in the past"
    if at > now + MAX_SECONDS:
        return f"its time is more than {MAX_SECONDS / 86400:.0f} days away"
    return None
