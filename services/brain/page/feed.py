"""Live events for the open tabs of the page, each tab with a bounded queue.

A tab that stops reading (a suspended laptop, a stuck connection) must not
make the brain hold its events without end: past :data:`QUEUE` unread events
the tab is dropped. Its stream then ends, and the browser's EventSource
reconnects and starts again from a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

log = logging.getLogger(__name__)

QUEUE = 256
"""Events one tab may have unread; a voice turn makes about twenty."""


class Tab:
    def __init__(self, size: int) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(size)
        """Events as SSE text; ``None`` ends the stream (the tab was dropped)."""
        self.dropped = False


class Feed:
    """Every open tab; :meth:`publish` hands an event to each."""

    def __init__(self, size: int = QUEUE) -> None:
        self.size = size
        self.tabs: set[Tab] = set()

    def open(self) -> Tab:
        tab = Tab(self.size)
        self.tabs.add(tab)
        return tab

    def close(self, tab: Tab) -> None:
        self.tabs.discard(tab)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        text = event(kind, data)
        for tab in list(self.tabs):
            if tab.queue.full():
                self._drop(tab)
            else:
                tab.queue.put_nowait(text)

    def end_all(self) -> None:
        """End every tab's stream (the brain stops: no open stream holds it up)."""
        for tab in list(self.tabs):
            self._end(tab)

    def _drop(self, tab: Tab) -> None:
        log.info("page: dropped a tab %d events behind", self.size)
        self._end(tab)

    def _end(self, tab: Tab) -> None:
        self.tabs.discard(tab)
        tab.dropped = True
        while not tab.queue.empty():  # room for the end: its events are no longer wanted
            tab.queue.get_nowait()
        tab.queue.put_nowait(None)


def event(kind: str, data: dict[str, Any]) -> str:
    """One server-sent event: its type, and its data as one line of JSON."""
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
