"""The page's live side: bus messages the bridge sees, folded and fanned out to every tab."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from bus.message import Message
from bus.messages import BargeIn, ListenClosed, ListenModeState, VolumeState
from bus.turns import TURN_MESSAGES
from services.brain.answers import REQUIRED
from services.brain.page.board import TurnBoard
from services.brain.page.feed import Feed, event
from services.brain.page.status import service_states
from services.brain.page.waiting import Waiting

if TYPE_CHECKING:  # the brain's start builds the API with the bridge: no cycle at run time
    from services.brain.service import BrainBridge

STATUS_EVERY = 1.0
"""Seconds between looks at the heartbeats: a service falls silent without a message."""
KEEPALIVE = 15
"""Looks without an event before a comment line: a closed tab is noticed by the write."""
EXPECTED = (*REQUIRED, "stt", "tts", "mic")
"""Services the page lists even before their first heartbeat."""
PAGE_FOLLOWS = (VolumeState, ListenModeState, ListenClosed, BargeIn)
"""What the page follows beyond the turns' messages (the bridge subscribes to it for the
page): the volume, the mic's listen mode, and what lets a voice question lapse."""


class Live:
    """Follows the bus through the bridge; :meth:`stream` is one tab's event stream."""

    def __init__(self, bridge: BrainBridge, listen_mode: str) -> None:
        self.bridge = bridge
        self.listen_mode = listen_mode
        """The config's until the mic says otherwise (``ListenModeState``)."""
        self.board = TurnBoard()
        self.feed = Feed()
        self.waiting = Waiting()
        self.volume: float | None = None
        bridge.observers.append(self.saw)

    def saw(self, msg: Message) -> None:
        if isinstance(msg, VolumeState):
            self.volume = msg.volume
            self.feed.publish("volume", {"volume": msg.volume})
            return
        if isinstance(msg, ListenModeState):
            self.listen_mode = msg.mode
            self.feed.publish("listen_mode", {"mode": msg.mode, "error": msg.error})
            return
        if isinstance(msg, TURN_MESSAGES):
            turn = self.board.add(msg)
            if turn is not None:
                self.feed.publish("turn", turn)
        if self.waiting.saw(msg, self.board.session_of):
            self.confirmations_changed()

    def confirmations_changed(self) -> None:
        self.feed.publish("confirmations", {"confirmations": self.waiting.views()})

    def services(self) -> dict[str, dict[str, str]]:
        return service_states(self.bridge.liveness, EXPECTED)

    def snapshot(self) -> dict[str, Any]:
        self.waiting.expire()
        return {
            "turns": self.board.recent(),
            "volume": self.volume,
            "services": self.services(),
            "listen_mode": self.listen_mode,
            "confirmations": self.waiting.views(),
        }

    async def stream(self) -> AsyncIterator[str]:
        """A snapshot, then every event as it comes, and the services whenever one's state
        changes; it ends when the tab falls too far behind (the browser reconnects)."""
        tab = self.feed.open()
        try:
            yield event("snapshot", self.snapshot())
            shown, quiet = self.services(), 0
            while True:
                quiet += 1
                with contextlib.suppress(TimeoutError):
                    text = await asyncio.wait_for(tab.queue.get(), STATUS_EVERY)
                    if text is None:
                        return
                    yield text
                    quiet = 0
                # The tabs' loops wake every second anyway: a question's time running out
                # is noticed here (the first tab to look tells them all).
                if self.waiting.expire():
                    self.confirmations_changed()
                now = self.services()
                if now != shown:
                    shown, quiet = now, 0
                    yield event("services", {"services": now})
                if quiet >= KEEPALIVE:
                    quiet = 0
                    yield ": keepalive\n\n"
        finally:
            self.feed.close(tab)
