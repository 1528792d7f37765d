"""Where a turn's time goes: waiting on others (LLM, tools, an earlier turn) or the loop itself."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class Waits:
    """Seconds a turn spent waiting, by what it waited for, and the loop's own share."""

    llm: float = 0.0
    """Inside the HTTP client: sending, waiting for and reading the stream."""
    tools: float = 0.0
    """Waiting for tool results."""
    queue: float = 0.0
    """Waiting for the session's previous turn to finish."""
    cpu: float = 0.0
    """This thread's CPU time during those waits (the HTTP client, other tasks)."""
    started: tuple[float, float] = field(
        default_factory=lambda: (time.perf_counter(), time.thread_time())
    )

    @contextlib.contextmanager
    def waiting(self, what: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            setattr(self, what, getattr(self, what) + time.perf_counter() - wall)
            self.cpu += time.thread_time() - cpu

    def overhead(self) -> tuple[float, float]:
        """(wall, CPU) seconds since ``started`` that were not spent waiting."""
        wall = time.perf_counter() - self.started[0] - self.llm - self.tools - self.queue
        cpu = time.thread_time() - self.started[1] - self.cpu
        return wall, cpu

    def summary(self) -> str:
        wall, cpu = self.overhead()
        return (
            f"overhead_ms={wall * 1000:.3f} overhead_cpu_ms={cpu * 1000:.3f} "
            f"llm_ms={self.llm * 1000:.1f} tools_ms={self.tools * 1000:.1f} "
            f"queue_ms={self.queue * 1000:.1f}"
        )
