"""Log lines that could flood (bad input from peers) at most once per interval per kind."""

from __future__ import annotations

import logging
import time


class RateLimitedLog:
    """``warn(kind, fmt, *args)`` logs the first of each kind per interval, then counts."""

    def __init__(self, logger: logging.Logger, interval: float = 10.0) -> None:
        self._log = logger
        self._interval = interval
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}

    def warn(self, kind: str, fmt: str, *args: object) -> bool:
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < self._interval:
            self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
            return False
        self._last[kind] = now
        dropped = self._suppressed.pop(kind, 0)
        suffix = f" ({dropped} more like this suppressed)" if dropped else ""
        self._log.warning(fmt + "%s", *args, suffix)
        return True
