"""What the mic says on the bus while its card fails: ``degraded`` with the reason, one
``Error`` per outage (not one per retry), and ``ready`` again once it records."""

from __future__ import annotations

from collections.abc import Callable

from bus.client import Bus
from bus.errors import ErrorCode
from bus.messages import Error
from services.base.names import MIC


def card_reporter(bus: Bus) -> Callable[[str | None], None]:
    """``report(problem)`` for :func:`services.mic.card.capture`: ``None`` once it works."""

    def report(problem: str | None) -> None:
        if problem is None:
            bus.set_state("ready")
            return
        if bus.detail != f"mic: {problem}"[:200]:  # once per outage, not once per retry
            bus.publish(Error(service=MIC, code=ErrorCode.MIC_UNAVAILABLE, message=problem))
        bus.set_state("degraded", f"mic: {problem}"[:200])

    return report
