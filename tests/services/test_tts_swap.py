"""Stopping the Kokoro speaker and starting espeak-ng (``--engine espeak``) on a running bus."""

from __future__ import annotations

from bus.client import Bus
from bus.messages import Spoken
from tests.helpers.soundcard import SoundCard
from tests.helpers.speaker import RunningTTS, turn, volume


def test_swapping_kokoro_for_espeak_keeps_the_bus_and_the_volume() -> None:
    async def first(bus: Bus) -> tuple[float, list]:
        level = await volume(bus, "set", 0.6)
        return level, (await turn(bus, ["Spoken by Kokoro."]))[1]

    async def second(bus: Bus) -> tuple[float, list]:
        level = await volume(bus, "get")
        return level, (await turn(bus, ["Spoken by espeak."]))[1]

    with SoundCard() as card:
        running = RunningTTS("kokoro", card)
        try:
            running.start()
            before, spoken_before = running.session(first)
            running.stop()  # the broker and the test's client stay up
            running.engine = "espeak"
            running.start()
            after, spoken_after = running.session(second)
        finally:
            running.close()
    assert before == after == 0.6
    assert [m.text for m in spoken_before if isinstance(m, Spoken)] == ["Spoken by Kokoro."]
    assert [m.text for m in spoken_after if isinstance(m, Spoken)] == ["Spoken by espeak."]
