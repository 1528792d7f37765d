"""Per-session conversation: the user's words and the spoken replies, nothing else."""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from services.dialogue.history_store import HistoryStore

_versions = itertools.count(1)
"""One counter for every session: a session forgotten and loaded again gets a new version,
never one an answer prepared before could still match."""


@dataclass
class _Session:
    exchanges: deque[tuple[str, str]]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    version: int = field(default_factory=lambda: next(_versions))
    """Changes with every change: an answer prepared from an older history is stale."""


class Sessions:
    """History windows per session, and a lock per session so its turns run in order.

    The window counts messages but is cut by whole exchanges (user, assistant):
    chat templates such as Gemma's fail on a history that starts with the
    assistant. Tool calls and results never enter it. The least recently used
    idle sessions are forgotten beyond ``max_sessions`` (from memory: with a
    ``store``, every session is also on disk and comes back when used again).
    """

    def __init__(
        self, max_messages: int, max_sessions: int = 1000, store: HistoryStore | None = None
    ) -> None:
        self.max_exchanges = max_messages // 2
        self.max_sessions = max_sessions
        self.store = store
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._saving: dict[str, concurrent.futures.Future[None]] = {}

    def _get(self, session: str) -> _Session:
        entry = self._sessions.get(session)
        if entry is None:
            saved = self.store.load(session) if self.store and self.max_exchanges else []
            entry = _Session(deque(saved, maxlen=self.max_exchanges))
            self._sessions[session] = entry
            self._forget_idle()
        self._sessions.move_to_end(session)
        return entry

    def _forget_idle(self) -> None:
        for name in list(self._sessions):
            if len(self._sessions) <= self.max_sessions:
                return
            if not self._sessions[name].lock.locked():
                del self._sessions[name]

    def lock(self, session: str) -> asyncio.Lock:
        return self._get(session).lock

    def messages(self, session: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for user, assistant in self._get(session).exchanges:
            out.append({"role": "user", "content": user})
            out.append({"role": "assistant", "content": assistant})
        return out

    def version(self, session: str) -> int:
        return self._get(session).version

    def remember(self, session: str, user: str, assistant: str) -> None:
        entry = self._get(session)
        entry.version = next(_versions)
        if self.max_exchanges:
            entry.exchanges.append((user, assistant))
            self._save(session, list(entry.exchanges))

    def amend(self, session: str, user: str, assistant: str) -> bool:
        """Replace the answer of the latest exchange, if it is the answer to ``user`` (a
        barge-in keeps only what was heard). Returns whether it did."""
        entry = self._get(session)
        if not entry.exchanges or entry.exchanges[-1][0] != user:
            return False
        entry.version = next(_versions)
        entry.exchanges[-1] = (user, assistant)
        self._save(session, list(entry.exchanges))
        return True

    def withdraw(self, session: str, user: str) -> bool:
        """Forget the latest exchange, if it is the answer to ``user`` (the user went on
        with that question before hearing its answer). Returns whether it did."""
        entry = self._get(session)
        if not entry.exchanges or entry.exchanges[-1][0] != user:
            return False
        entry.version = next(_versions)
        entry.exchanges.pop()
        self._save(session, list(entry.exchanges))
        return True

    def clear(self, session: str) -> None:
        entry = self._get(session)
        entry.version = next(_versions)
        entry.exchanges.clear()
        self._save(session, [])

    def _save(self, session: str, exchanges: list[tuple[str, str]]) -> None:
        if self.store is not None:
            self._saving[session] = self.store.save(session, exchanges)

    async def saved(self, session: str) -> None:
        """Once the latest change of ``session`` is on disk (a reply then means remembered)."""
        saving = self._saving.get(session)
        if saving is not None:
            await asyncio.wrap_future(saving)
            if self._saving.get(session) is saving:
                del self._saving[session]
