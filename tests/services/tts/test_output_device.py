"""No sound device, or one that goes away: the speaker keeps its contract, degraded."""

from __future__ import annotations

from bus.client import Bus
from bus.messages import Heartbeat, Spoken
from tests.helpers.soundcard import SoundCard
from tests.helpers.speaker import RunningTTS, turn

# espeak-ng starts in a second; the output handling is the same code for both services.
ENGINE = "espeak"


def test_without_any_sound_server_it_runs_degraded_and_still_writes_wavs() -> None:
    running = RunningTTS(ENGINE, None)
    try:
        beat = running.start(ready=("degraded",))
        assert beat.detail.startswith("no audio output")
        turn_id, got = running.session(lambda bus: turn(bus, ["Nobody hears this."]))
        assert [m.text for m in got if isinstance(m, Spoken)] == ["Nobody hears this."]
        samples, rate = running.wav(turn_id)
        assert len(samples) / rate > 0.5
    finally:
        running.close()


def test_when_the_sound_server_dies_it_reports_it_and_keeps_speaking() -> None:
    card = SoundCard().start()
    running = RunningTTS(ENGINE, card)
    try:
        running.start()
        card.stop()

        async def body(bus: Bus) -> list:
            await bus.wait_for(Heartbeat, lambda h: h.state == "degraded", timeout=20)
            return (await turn(bus, ["Still here."]))[1]

        got = running.session(body)
        assert [m.text for m in got if isinstance(m, Spoken)] == ["Still here."]
        assert running.proc is not None and running.proc.popen.poll() is None
    finally:
        running.close()
        card.stop()


def test_a_sound_server_that_appears_later_is_found_and_used() -> None:
    card = SoundCard()  # its address is known before it runs
    running = RunningTTS(ENGINE, card)
    try:
        running.start(ready=("degraded",))
        card.start()

        async def body(bus: Bus) -> list:
            # Retries back off 1, 2, 4 s... and restart PortAudio to see the new server.
            await bus.wait_for(Heartbeat, lambda h: h.state == "ready", timeout=30)
            return (await turn(bus, ["Now you hear me."]))[1]

        got = running.session(body)
        assert [m.text for m in got if isinstance(m, Spoken)] == ["Now you hear me."]
    finally:
        running.close()
        card.stop()


def test_an_output_device_that_does_not_exist_is_reported_with_the_devices_there_are() -> None:
    with SoundCard() as card:
        running = RunningTTS(ENGINE, card, '[audio]\noutput = "no such card"\n')
        try:
            beat = running.start(ready=("degraded",))
            assert "no such card" in beat.detail
            assert "output devices: 'pulse'" in beat.detail
        finally:
            running.close()


def test_the_device_buffer_is_the_configured_output_latency() -> None:
    with SoundCard() as card:
        running = RunningTTS(ENGINE, card, "[audio]\noutput_latency = 0.05\n")
        try:
            running.start()
            assert "latency 0.050 s" in running.output()
            turn_id, got = running.session(lambda bus: turn(bus, ["Heard sooner."]))
            assert [m.text for m in got if isinstance(m, Spoken)] == ["Heard sooner."]
        finally:
            running.close()
