"""A barge-in empties the device's buffer: the audio already handed to the sound server
but not yet heard is never played, and the fade starts at the sample being heard.

The segment is a chirp, so the frequency heard at the card says which part of it
played: the highest heard is the furthest the user heard, whatever the timing.
"""

from __future__ import annotations

import asyncio

import numpy as np

from bench.ear import RATE as HEARD_RATE
from bench.ear import Ear
from services.tts.output import AudioOutput
from services.tts.playback import PlaybackEvent, PlaybackQueue, Segment
from tests.helpers.polling import until
from tests.helpers.soundcard import SoundCard

RATE = 24000
START_HZ, HZ_PER_SECOND, SECONDS = 300.0, 1000.0, 3.0
"""The chirp: 300 Hz rising to 3300 Hz, below the recording's 8 kHz."""
FADE = round(0.02 * RATE)
WINDOW = 320
"""Samples of the recording per frequency reading (20 ms at 16 kHz)."""
TONE_HZ = 150
"""A window is a tone when this many Hz around its peak hold most of its power."""
LATENCY = 0.3
"""The device's buffer in this test: longer than the default, so that what a flush drops
is far more than what the sound server has already mixed (up to about 0.07 s)."""


def chirp() -> bytes:
    t = np.arange(int(SECONDS * RATE)) / RATE
    phase = 2 * np.pi * (START_HZ * t + HZ_PER_SECOND * t * t / 2)
    return (0.3 * 32767 * np.sin(phase)).astype("<i2").tobytes()


def furthest_heard(samples: np.ndarray) -> float:
    """Seconds into the chirp of the highest frequency in the recording (the end of the
    window it was read in). Windows where the sound is not a tone (the click where the
    device's buffer was dropped) do not count."""
    furthest = 0.0
    for start in range(0, len(samples) - WINDOW, WINDOW // 4):
        window = samples[start : start + WINDOW]
        if np.max(np.abs(window)) < 0.02:
            continue
        power = np.abs(np.fft.rfft(window * np.hanning(WINDOW), n=HEARD_RATE)) ** 2
        top = int(np.argmax(power))
        if power[max(0, top - TONE_HZ) : top + TONE_HZ].sum() < 0.8 * power.sum():
            continue
        at = (top - START_HZ) / HZ_PER_SECOND + WINDOW / 2 / HEARD_RATE
        furthest = max(furthest, at)
    return furthest


def test_a_cut_plays_nothing_of_what_the_device_buffer_held(portaudio_card: SoundCard) -> None:
    states: list[str] = []
    playback = PlaybackQueue()
    taken: list[tuple[float, float]] = []

    def cut(now: float) -> None:
        handed = SECONDS - playback.queued_seconds(RATE)  # the part given to the device
        taken.append((handed, playback.rewind(now)))
        playback.cut({"t"}, FADE, "token")

    async def scenario(output: AudioOutput) -> PlaybackEvent:
        await until(lambda: "ready" in states, "the output plays", timeout=20)
        playback.put(Segment(chirp(), _Tag("t")))
        await until(lambda: playback.queued_seconds(RATE) < SECONDS - 1.0, "a second played")
        output.flushed(cut)
        return await asyncio.to_thread(_finished, playback)

    ear = Ear(portaudio_card).start()
    output = AudioOutput(playback, RATE, "", on_state=lambda state, _: states.append(state),
                         latency=LATENCY)
    output.start()
    try:
        finished = asyncio.run(scenario(output))
        after = ear.position() + HEARD_RATE // 2  # the fade and the buffer's time, heard
        asyncio.run(until(lambda: ear.position() > after, "the card recorded on", timeout=10))
    finally:
        output.close()
        ear.stop()
    ((handed, back),) = taken
    played = len(finished.segment.pcm) / 2 / RATE
    # The device held audio it had not played yet (its buffer): taken back.
    assert back > LATENCY / 2, taken
    assert abs(played - (handed - back + FADE / RATE)) < 0.002
    # None of it was heard: the chirp stops at the rewound sample and its fade.
    furthest = furthest_heard(ear.samples(0))
    assert furthest < handed - LATENCY / 2, (furthest, handed, back)
    # ...and the fade from there was: the stream played on after the flush.
    assert abs(furthest - played) < 0.03, (furthest, played)


class _Tag:
    def __init__(self, turn: str) -> None:
        self.turn = turn


def _finished(playback: PlaybackQueue) -> PlaybackEvent:
    while True:
        event = playback.events.get(timeout=10)
        if event is not None and event.kind == "finished":
            return event
