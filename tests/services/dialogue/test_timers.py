"""Timers survive a restart of the dialogue, and leave the file only once announced."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from services.dialogue.intents.timers import Timer, Timers


def test_a_timer_set_before_a_restart_rings_after_it(tmp_path: Path) -> None:
    path = tmp_path / "timers.json"
    now = [1000.0]
    before = Timers(path, ring=_never, clock=lambda: now[0])
    set_it = before.start(120, "it")
    assert [t.id for t in before.counting()] == [set_it.id]

    now[0] += 200  # the dialogue was down while it ended
    rung: list[Timer] = []

    async def ring(timer: Timer) -> None:
        rung.append(timer)
        assert json.loads(path.read_text())  # still saved while its announcement plays
        raise asyncio.CancelledError  # stop the loop once the first one rang

    after = Timers(path, ring=ring, clock=lambda: now[0])
    assert after.counting() == []  # ended: not counting, but not forgotten
    try:
        asyncio.run(after.run())
    except asyncio.CancelledError:
        pass
    assert [(t.id, t.lang, t.seconds) for t in rung] == [(set_it.id, "it", 120)]


def test_cancel_and_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "timers.json"
    timers = Timers(path, ring=_never, clock=lambda: 0.0)
    timers.start(5, "en")
    timers.start(9, "en")
    assert timers.cancel() == 2 and json.loads(path.read_text()) == []
    path.write_text("{not json")
    assert Timers(path, ring=_never).counting() == []  # logged, and starting afresh


async def _never(timer: Timer) -> None:
    raise AssertionError(f"{timer} rang")
