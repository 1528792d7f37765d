"""A finished timer's announcement waits for a working speaker, and is sent again as soon as
the speaker it went to is replaced by another process, not after a long deadline."""

from __future__ import annotations

import asyncio

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.liveness import Liveness
from bus.messages import Heartbeat, SpeakRequest, Spoken
from services.base.names import SPEAKER
from services.dialogue.intents.announcer import ANNOUNCED_WITHIN, Announcer
from services.dialogue.intents.timers import Timer

WAIT = ANNOUNCED_WITHIN / 3
"""Well short of the deadline after which an unplayed announcement is sent again anyway."""


def beat(pid: int, state: str) -> Heartbeat:
    return Heartbeat(service=SPEAKER, pid=pid, state=state, version="test", interval=5.0)


async def feed_liveness(bus: Bus, liveness: Liveness) -> None:
    """As the dialogue does with every heartbeat of its inbox."""
    async for msg in bus:
        if isinstance(msg, Heartbeat):
            liveness.saw(msg)


def test_sent_to_the_speaker_that_replaced_a_dead_one(module_broker: Endpoints) -> None:
    async def scenario() -> None:
        dialogue, speaker = Bus(module_broker, "dialogue"), Bus(module_broker, "speaker")
        try:
            liveness = Liveness()
            dialogue.subscribe(Heartbeat.TOPIC)
            speaker.subscribe(SpeakRequest.TOPIC)
            await dialogue.wait_connected()
            await speaker.wait_connected()
            liveness.saw(beat(1, "ready"))  # the speaker that will die unheard
            feed = asyncio.ensure_future(feed_liveness(dialogue, liveness))
            ring = asyncio.ensure_future(
                Announcer(dialogue, liveness).ring(Timer("t", 2, 0.0, "en"))
            )
            first = await speaker.wait_for(SpeakRequest, timeout=WAIT)
            speaker.publish(beat(2, "starting"))  # its successor, not yet able to play
            speaker.publish(beat(2, "ready"))
            again = await speaker.wait_for(SpeakRequest, timeout=WAIT)
            assert (first.text, again.text) == ("Your 2 seconds timer is done.",) * 2
            assert again.turn != first.turn and again.kind == "announce"
            speaker.publish(Spoken(text=again.text, lang="en", turn=again.turn))
            await asyncio.wait_for(ring, WAIT)
            feed.cancel()
        finally:
            await dialogue.close()
            await speaker.close()

    asyncio.run(scenario())
