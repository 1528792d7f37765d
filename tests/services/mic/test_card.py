"""The mic service on a real (virtual) sound card: questions played into PulseAudio's null
sink are recorded from its monitor, cut by Silero, transcribed and published."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bus.client import Bus
from bus.message import Message
from bus.messages import Error, Heartbeat, Speaking, SpeechStarted, Transcript, Utterance
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process
from tests.helpers.service_stack import Stack, expect, wait_state
from tests.helpers.soundcard import SoundCard
from tests.helpers.speech import padded
from tests.helpers.words import words

QUESTION = "What is the weather like in Rome tomorrow?"
SHORT = "Set a timer for ten minutes."
CARD = 'card = "pulse"\n'


@pytest.fixture(scope="module")
def stack(card: SoundCard) -> Iterator[Stack]:
    # No card in the file: the default, the system's default input, which here is the
    # null sink's monitor (a question played there is heard only if the default works).
    stack = Stack('[whisper]\nbackend = "embedded"\n')
    try:
        stack.start("services.mic", env=card.env())
        stack.start("services.stt")

        async def ready(bus: Bus) -> None:
            await wait_state(bus, "mic", "ready")
            await wait_state(bus, "stt", "ready", timeout=120)

        with_buses(stack.endpoints, ["test"], ready)
        yield stack
    finally:
        stack.close()


async def collect(bus: Bus, until: type[Message]) -> list[Message]:
    """Messages of the inbox up to the first (final) ``until``."""
    got: list[Message] = []
    while True:
        msg = await bus.recv(timeout=30)
        assert msg is not None, f"no {until.TOPIC} within 30 s; got {got}"
        if isinstance(msg, Heartbeat):
            continue
        got.append(msg)
        if isinstance(msg, until) and not getattr(msg, "partial", False):
            return got


def test_a_question_played_into_the_card_reaches_the_bus_as_its_transcript(
    card: SoundCard, stack: Stack
) -> None:
    wav, length = padded(QUESTION, stack.root)

    async def body(bus: Bus) -> list[Message]:
        bus.subscribe("audio.", "stt.")
        await bus.wait_path(bus)
        await asyncio.to_thread(card.play, wav)
        return await collect(bus, Transcript)

    got = with_buses(stack.endpoints, ["test"], body)
    started = [m for m in got if isinstance(m, SpeechStarted)]
    finals = [m for m in got if isinstance(m, Utterance) and not m.partial]
    assert len(started) == len(finals) == 1
    transcript = got[-1]
    assert isinstance(transcript, Transcript)
    assert words(transcript.text) == words(QUESTION)
    assert transcript.turn == started[0].turn == finals[0].turn
    assert abs(finals[0].duration - (length + 0.3)) < 0.3


def test_nothing_is_heard_while_the_assistant_speaks(card: SoundCard, stack: Stack) -> None:
    heard_while_speaking, _ = padded(QUESTION, stack.root)
    heard_after, length = padded(SHORT, stack.root)

    async def body(bus: Bus) -> list[Message]:
        bus.subscribe("audio.")
        await bus.wait_path(bus)
        bus.publish(Speaking(speaking=True))
        await asyncio.to_thread(card.play, heard_while_speaking)
        # Mid-question the speaker stops: the rest of the question is lost with its start.
        bus.publish(Speaking(speaking=False))
        await asyncio.to_thread(card.play, heard_after)
        return await collect(bus, Utterance)

    got = with_buses(stack.endpoints, ["test"], body)
    # Only the question played after the speaker stopped was heard: one turn, its length.
    assert len({m.turn for m in got}) == 1
    final = got[-1]
    assert isinstance(final, Utterance)
    assert abs(final.duration - (length + 0.3)) < 0.3


def test_a_card_that_matches_nothing_is_reported_with_the_devices_there_are(
    card: SoundCard, stack: Stack
) -> None:
    folder = stack.write(top='card = "Nonexistent USB Mic"\n', name="nocard")
    mics: list[Process] = []

    async def body(bus: Bus) -> tuple[Error, Heartbeat]:
        bus.subscribe(Error.TOPIC)
        await bus.wait_path(bus)
        error = await expect(bus, Error, lambda e: e.service == "mic")
        mics.append(stack.start("services.mic", env=card.env(), config=folder))
        beat = await wait_state(bus, "mic", "degraded", timeout=20)
        return await error, beat

    try:
        error, beat = with_buses(stack.endpoints, ["test"], body)
        assert error.code == "mic-unavailable"
        assert "card = 'Nonexistent USB Mic' matches no input device" in error.message
        assert "pulse, ALSA" in error.message and "default, ALSA" in error.message
        assert beat.detail.startswith("mic: card = 'Nonexistent USB Mic'")
        assert mics[0].popen.poll() is None  # still running, trying again
    finally:
        mics[0].stop()


def test_a_card_that_disappears_is_reopened() -> None:
    card = SoundCard().start()
    stack = Stack(top=CARD)
    try:
        stack.start("services.mic", env=card.env())
        wav, length = padded(SHORT, stack.root)

        async def body(bus: Bus) -> Utterance:
            bus.subscribe(Utterance.TOPIC)
            await bus.wait_path(bus)
            await wait_state(bus, "mic", "ready")
            card.unplug()
            gone = await wait_state(bus, "mic", "degraded", timeout=20)
            assert "mic:" in gone.detail
            card.start()
            await wait_state(bus, "mic", "ready", timeout=60)
            final = await expect(bus, Utterance, lambda u: not u.partial)
            await asyncio.to_thread(card.play, wav)
            return await final

        final = with_buses(stack.endpoints, ["test"], body)
        assert abs(final.duration - (length + 0.3)) < 0.3
    finally:
        stack.close()
        card.stop()
