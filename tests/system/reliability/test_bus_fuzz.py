"""Fuzzing the bus: hostile frames never crash a decoder or a receiver, valid traffic goes on."""

from __future__ import annotations

import asyncio
import random
import resource

from bus.client import Bus
from bus.messages import SpeakRequest
from bus.registry import DecodeError, decode
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.fuzz_frames import frames
from tests.helpers.processes import Process

DECODER_FRAMES = 100_000
BROKER_FRAMES = 20_000


def test_decoder_survives_100k_hostile_frames() -> None:
    rng = random.Random(20261130)
    rejected = accepted = 0
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for case in frames(rng, DECODER_FRAMES):
        try:
            decode(case)
            accepted += 1  # a mutation can still be a valid message
        except DecodeError:
            rejected += 1
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert rejected + accepted == DECODER_FRAMES
    assert rejected > DECODER_FRAMES * 0.8
    assert grown_mb < 200, f"decoder memory grew {grown_mb:.0f} MB"


def test_live_broker_and_receiver_survive_hostile_frames(
    broker: Process, config_folder: ConfigFolder
) -> None:
    rng = random.Random(7)
    bad: list[str] = []

    async def body(attacker: Bus, victim: Bus) -> None:
        victim.subscribe("")
        await victim.wait_path(attacker)
        sent_valid = 0
        for i, case in enumerate(frames(rng, BROKER_FRAMES)):
            attacker.send_raw(case)
            if i % 100 == 0:
                attacker.publish(SpeakRequest(text=f"valid {sent_valid}"))
                sent_valid += 1
                await asyncio.sleep(0)  # let the victim drain; PUB drops past its HWM
        attacker.publish(SpeakRequest(text="the end"))
        seen: set[str] = set()
        while "the end" not in seen:
            msg = await victim.recv(timeout=30)
            assert msg is not None, f"valid traffic stopped after {len(seen)} messages"
            if isinstance(msg, SpeakRequest) and msg.src == "attacker":
                seen.add(msg.text)
        assert len([t for t in seen if t.startswith("valid")]) == sent_valid

    with_buses(
        config_folder.endpoints,
        ["attacker", "victim"],
        body,
        on_invalid=lambda f, err: bad.append(err.reason),
    )
    assert len(bad) > BROKER_FRAMES * 0.5
    assert broker.popen.poll() is None, "the broker died"
