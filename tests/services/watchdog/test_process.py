"""The watchdog process on a real broker, with a test client playing the other stages."""

from __future__ import annotations

import asyncio
import contextlib
import time

from bus.client import Bus
from bus.errors import ErrorCode
from bus.messages import Error, Heartbeat, SpeakRequest, SpeechEnded, SpeechStarted, Spoken
from services.base.phrases import apology
from services.watchdog.service import RESAY
from tests.conftest import ConfigFolder
from tests.helpers.broker import running_broker
from tests.helpers.processes import Process

BEAT = 0.25


async def beat(bus: Bus, alive: dict[str, int]) -> None:
    """Heartbeats of the stages the test plays (each with its own made-up pid)."""
    while True:
        for service, pid in list(alive.items()):
            bus.publish(
                Heartbeat(service=service, pid=pid, state="ready", version="1", interval=BEAT)
            )
        await asyncio.sleep(BEAT)  # the cadence of a heartbeat, not a wait for something


def test_a_turn_whose_stage_dies_gets_an_apology_until_the_speaker_confirms_it(
    config_folder: ConfigFolder, tmp_path
) -> None:
    config_folder.write("")
    config = config_folder.path / "config.toml"
    config.write_text(config.read_text().replace("[bus]\n", f"[bus]\nheartbeat = {BEAT}\n"))
    with running_broker(config_folder.path, config_folder.endpoints, tmp_path):
        dog = Process("services.watchdog", *config_folder.args(), log_dir=tmp_path)
        try:
            asyncio.run(_play(config_folder, dog))
        finally:
            dog.stop()


async def _play(config_folder: ConfigFolder, dog: Process) -> None:
    alive = {"mic": 101, "stt": 102, "dialogue": 103, "tts": 104}
    async with Bus(config_folder.endpoints, "test") as bus:
        bus.subscribe(Heartbeat.TOPIC, SpeakRequest.TOPIC, Error.TOPIC)
        await bus.wait_connected()
        beats = asyncio.ensure_future(beat(bus, alive))
        try:
            await bus.wait_for(
                Heartbeat, lambda h: h.pid == dog.pid and h.state == "ready", timeout=30
            )
            bus.publish(SpeechStarted(turn="t1", src="mic"))
            bus.publish(SpeechEnded(speech_end=time.time(), duration=1.0, turn="t1", src="mic"))
            await bus.wait_connected()  # the turn has reached the broker (and the watchdog)
            del alive["stt"]  # the stage holding the turn dies
            died = time.monotonic()
            error, say = await asyncio.gather(
                bus.wait_for(Error, lambda e: e.turn == "t1", timeout=10),
                bus.wait_for(SpeakRequest, lambda s: s.turn == "t1", timeout=10),
            )
            assert time.monotonic() - died < 3 * BEAT + 2.0
            assert error.code == "turn-lost" and "stt" in error.message
            lost_at_stt = apology(ErrorCode.TURN_LOST, "en", stage="stt")[0]
            assert (say.kind, say.final, say.text) == ("error", True, lost_at_stt)

            again = await bus.wait_for(SpeakRequest, lambda s: s.turn == "t1", timeout=RESAY + 3)
            assert again.text == say.text  # unconfirmed: said again
            bus.publish(Spoken(text=say.text, seq=say.seq, turn="t1", src="tts"))
            with contextlib.suppress(TimeoutError):
                extra = await bus.wait_for(
                    SpeakRequest, lambda s: s.turn == "t1", timeout=RESAY + 1
                )
                raise AssertionError(f"apologized again after the speaker confirmed: {extra}")
        finally:
            beats.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beats
