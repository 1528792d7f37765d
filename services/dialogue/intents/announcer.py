"""A finished timer's announcement, sent until the speaker has played it.

The speaker may be down when a timer ends, or die while it plays: the announcement
waits for a working speaker, and is sent again as soon as the process it went to is
lost (killed, restarted, stopping, or silent for three heartbeat periods) and a
working one beats again, instead of waiting out :data:`ANNOUNCED_WITHIN`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from bus.client import Bus, RequestTimeout
from bus.liveness import Liveness
from bus.message import new_id
from bus.messages import Heartbeat, SpeakRequest, Spoken, TraceMark
from services.base.names import SPEAKER
from services.dialogue.intents.notifier import Notifier
from services.dialogue.intents.phrases import duration, phrase
from services.dialogue.intents.timers import Timer

log = logging.getLogger(__name__)

ANNOUNCED_WITHIN = 30.0
"""Seconds a working speaker may take to play an announcement before it is sent again."""
CHECK = 0.2
"""Seconds between looks at the speaker's heartbeats while the announcement plays."""


class Announcer:
    """``liveness`` is the dialogue's, fed with every heartbeat of its inbox."""

    def __init__(self, bus: Bus, liveness: Liveness, notifier: Notifier | None = None) -> None:
        self.bus, self.liveness = bus, liveness
        self.notifier = notifier or Notifier()

    async def ring(self, timer: Timer) -> None:
        """Announce ``timer`` (after the speaker's tone); returns once it has been played.
        A reminder is shown as a desktop notification too, as soon as it is due."""
        if timer.text:
            words = timer.text.strip().rstrip(".!?。！？")
            text = phrase("reminder", timer.lang, text=words)
            await self.notifier.show(phrase("reminder_title", timer.lang), timer.text.strip())
        else:
            text = phrase("timer_done", timer.lang, text=duration(timer.seconds, timer.lang))
        stage = "reminder.due" if timer.text else "timer.done"
        while True:
            pid = await self._working_speaker()
            turn = new_id()
            played = asyncio.ensure_future(
                self.bus.wait_for(Spoken, _of(turn), timeout=ANNOUNCED_WITHIN)
            )
            self.bus.publish(TraceMark(stage=stage, detail=timer.id, turn=turn))
            self.bus.publish(
                SpeakRequest(text=text, lang=timer.lang, kind="announce", final=True, turn=turn)
            )
            why = await self._played_or_lost(played, pid)
            if why is None:
                return
            log.warning("timer %s: its announcement was not played (the speaker %s): again",
                        timer.id, why)

    async def _working_speaker(self) -> int:
        """The pid of a speaker that beats and is neither starting nor stopping."""
        while (pid := self.liveness.working_pid(SPEAKER)) is None:
            with contextlib.suppress(RequestTimeout):
                beat = await self.bus.wait_for(Heartbeat, _of_speaker, timeout=ANNOUNCED_WITHIN)
                # A message a waiter takes skips the inbox, so the service never feeds it.
                self.liveness.saw(beat)
        return pid

    async def _played_or_lost(self, played: asyncio.Future[Spoken], pid: int) -> str | None:
        """None once ``played``; else why process ``pid`` will not play it."""
        try:
            while True:
                done, _ = await asyncio.wait({played}, timeout=CHECK)
                if done:
                    try:
                        played.result()
                        return None
                    except RequestTimeout:
                        return f"did not play it within {ANNOUNCED_WITHIN:g} s"
                why = self.liveness.lost(SPEAKER, pid)
                if why is not None:
                    return why
        finally:
            if not played.done():
                played.cancel()
                with contextlib.suppress(asyncio.CancelledError, RequestTimeout):
                    await played


def _of(turn: str) -> Callable[[Spoken], bool]:
    return lambda spoken: spoken.turn == turn


def _of_speaker(beat: Heartbeat) -> bool:
    return beat.service == SPEAKER
