"""Conversation history on disk: one small JSON file per session, so a restart forgets nothing.

Files live in ``<state>/history/`` and are named by a hash of the session
(session names come from clients). Each is written atomically (temp file,
fsync, rename) by one background thread, so the event loop never waits on the
disk and writes of a session keep their order. Sizes are bounded: each text
is cut to ``max_chars``, the window is the dialogue's, and the least recently
written files of the HTTP sessions go beyond ``max_files``. Those live in their
own ``http/`` subfolder, so that any client creating sessions by the thousand
never evicts the voice sessions (``local``, each site) or the command line's,
which are few and the user's own. A file that cannot be read back is reported
and renamed aside, and the session starts afresh.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.base.names import HTTP_SESSIONS
from settings.state import set_aside, write_atomic

log = logging.getLogger(__name__)

FORMAT = 1
MAX_FILE_BYTES = 1024 * 1024
"""A history file larger than this is not read (it cannot have come from us)."""
PRUNE_EVERY = 100
"""Writes between two looks for files beyond ``max_files``."""

Exchange = tuple[str, str]
Corrupt = Callable[[Path, str, Path], None]
"""Told (file, problem, where it was moved) when a file was set aside."""


class HistoryStore:
    def __init__(
        self,
        folder: Path,
        max_files: int = 1000,
        max_chars: int = 4000,
        on_corrupt: Corrupt | None = None,
    ) -> None:
        self.folder = folder
        self.max_files = max_files
        self.max_chars = max_chars
        self.on_corrupt = on_corrupt
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="history")
        self._writes = 0
        self._writer.submit(self._prune)

    @property
    def http_folder(self) -> Path:
        """The HTTP sessions' files, the only ones counted against ``max_files``."""
        return self.folder / "http"

    def path(self, session: str) -> Path:
        name = f"{hashlib.sha256(session.encode()).hexdigest()[:32]}.json"
        return (self.http_folder if session.startswith(HTTP_SESSIONS) else self.folder) / name

    def load(self, session: str) -> list[Exchange]:
        """The saved exchanges of ``session``; none when there is no file or a bad one."""
        path = self.path(session)
        try:
            self._move_from_top(path)
            if path.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
            return _exchanges(json.loads(path.read_bytes()), session)
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.error("cannot read the history of session %s from %s: %s", session, path, exc)
            return []
        except (ValueError, TypeError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            self._corrupt(path, str(exc) or type(exc).__name__)
            return []

    def save(self, session: str, exchanges: list[Exchange]) -> concurrent.futures.Future[None]:
        """Write (or, when empty, remove) the file in the background; the write is done when
        the returned future is."""
        cut = [(u[: self.max_chars], a[: self.max_chars]) for u, a in exchanges]
        return self._writer.submit(self._write, session, cut)

    def _move_from_top(self, path: Path) -> None:
        """An HTTP session's file saved before they had their own folder moves there."""
        old = self.folder / path.name
        if path.parent != self.folder and not path.exists() and old.exists():
            path.parent.mkdir(mode=0o700, exist_ok=True)
            old.rename(path)

    def close(self) -> None:
        """Finish pending writes."""
        self._writer.shutdown(wait=True)

    def _write(self, session: str, exchanges: list[Exchange]) -> None:
        path = self.path(session)
        try:
            if not exchanges:
                path.unlink(missing_ok=True)
                return
            body = {"v": FORMAT, "session": session, "exchanges": exchanges}
            write_atomic(path, json.dumps(body, ensure_ascii=False).encode())
        except OSError as exc:
            log.error("cannot save the history of session %s to %s: %s", session, path, exc)
            return
        self._writes += 1
        if self._writes % PRUNE_EVERY == 0:
            self._prune()

    def _prune(self) -> None:
        """Remove the least recently written HTTP sessions' files beyond ``max_files``."""
        try:
            files = sorted(self.http_folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
            for old in files[: max(0, len(files) - self.max_files)]:
                old.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("cannot prune the history folder %s: %s", self.folder, exc)

    def _corrupt(self, path: Path, problem: str) -> None:
        try:
            aside = set_aside(path)
        except OSError as exc:
            log.error("history file %s is unreadable (%s), cannot move it: %s", path, problem, exc)
            return
        log.warning("history file %s is unreadable (%s): set aside as %s", path, problem, aside)
        if self.on_corrupt is not None:
            self.on_corrupt(path, problem, aside)


def _exchanges(data: Any, session: str) -> list[Exchange]:
    """Validate a file's content; ValueError or TypeError says what is wrong."""
    if not isinstance(data, dict) or data.get("v") != FORMAT:
        raise ValueError(f"not a version {FORMAT} history object")
    if data.get("session") != session:
        raise ValueError("it belongs to another session")
    pairs = data.get("exchanges")
    if not isinstance(pairs, list):
        raise TypeError("exchanges is not a list")
    out = []
    for pair in pairs:
        texts = isinstance(pair, list) and all(isinstance(t, str) for t in pair)
        if not texts or len(pair) != 2:
            raise TypeError("an exchange is not a pair of texts")
        out.append((pair[0], pair[1]))
    return out
