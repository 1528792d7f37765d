"""The STT service with the embedded faster-whisper (multilingual base), on Kokoro-spoken
questions."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from bus.client import Bus
from bus.message import new_id
from bus.messages import Error, SpeakRequest, SpeculativeTranscript, Transcript, Utterance
from hearing.convert import decode_file
from tests.helpers.busrun import with_buses
from tests.helpers.ports import free_port
from tests.helpers.processes import Process
from tests.helpers.service_stack import Stack, expect, wait_state
from tests.helpers.speech import spoken
from tests.helpers.words import recall, words

QUESTIONS = [
    "What is the weather like in Rome tomorrow?",
    "Set a timer for ten minutes.",
    "Turn the volume up a little.",
]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # backend = "auto" on a machine without whisper-server: what a fresh install runs.
    port = free_port()
    stack = Stack(f'[whisper]\nbackend = "auto"\nserver = "/nonexistent/whisper-server"\n'
                  f"port = {port}\n")
    try:
        yield stack
    finally:
        stack.close()


@pytest.fixture(scope="module")
def stt(stack: Stack) -> Process:
    proc = stack.start("services.stt")

    async def ready(bus: Bus) -> None:
        await wait_state(bus, "stt", "ready", timeout=120)

    with_buses(stack.endpoints, ["test"], ready)
    return proc


def test_auto_falls_back_to_the_embedded_model(stt: Process) -> None:
    log = stt.output()
    passed = re.search(r"\[whisper\] backend auto: server: nothing answers at (\S+); (.*); "
                       r"using embedded", log)
    assert passed and "no whisper-server binary '/nonexistent/whisper-server'" in passed[2]
    assert "embedded whisper: whisper-base" in log and "languages en, it, ja" in log


def pcm(text: str) -> bytes:
    return b"".join(decode_file(spoken(text)))


def utterance(audio: bytes, turn: str, partial: bool = False) -> Utterance:
    return Utterance(pcm=audio, rate=16000, duration=len(audio) / 32000, speech_end=1234.5,
                     partial=partial, turn=turn)


async def listening(bus: Bus) -> None:
    bus.subscribe(Transcript.TOPIC, Error.TOPIC, SpeakRequest.TOPIC)
    await bus.wait_path(bus)


async def transcript_of(bus: Bus, turn: str) -> asyncio.Task[Transcript]:
    return await expect(bus, Transcript, lambda t: t.turn == turn, timeout=60)


def test_spoken_questions_come_back_in_english_with_their_words(stack: Stack, stt: Process) -> None:
    async def body(bus: Bus) -> None:
        await listening(bus)
        for question in QUESTIONS:
            turn = new_id()
            audio = pcm(question)
            waiter = await transcript_of(bus, turn)
            bus.publish(utterance(audio, turn))
            got = await waiter
            # Whisper base mishears a word now and then ("Set time for 10 minutes", at any beam
            # size): the share of words tells a misheard word from a cut or lost question.
            assert recall(words(question), words(got.text)) >= 0.6, got.text
            assert got.lang == "en"
            assert got.duration == pytest.approx(len(audio) / 32000)
            assert got.speech_end == 1234.5
            assert got.compute > 0

    with_buses(stack.endpoints, ["test"], body)


def test_a_final_with_the_partial_audio_reuses_the_speculative_transcript(
    stack: Stack, stt: Process
) -> None:
    turn = new_id()
    audio = pcm(QUESTIONS[1])

    async def body(bus: Bus) -> list[Transcript]:
        await listening(bus)
        bus.publish(utterance(audio, turn, partial=True))
        bus.publish(utterance(audio, turn))
        later = new_id()  # a second question proves nothing else came for the first
        bus.publish(utterance(pcm(QUESTIONS[0]), later))
        got = []
        while (msg := await bus.recv(timeout=60)) is not None:
            if isinstance(msg, Transcript):
                got.append(msg)
                if msg.turn == later:
                    break
        return got

    got = with_buses(stack.endpoints, ["test"], body)
    # One transcript for the turn, with the words. (That the final reuses the partial's run
    # rather than running again is counted in test_service.py, with a backend that counts.)
    assert [t.turn for t in got[:-1]] == [turn]
    assert recall(words(QUESTIONS[1]), words(got[0].text)) >= 0.6, got[0].text


def test_a_partial_is_guessed_aloud_and_its_final_confirms_the_words(
    stack: Stack, stt: Process
) -> None:
    turn = new_id()
    audio = pcm(QUESTIONS[2])

    async def body(bus: Bus) -> tuple[SpeculativeTranscript, Transcript]:
        bus.subscribe(SpeculativeTranscript.TOPIC)
        await listening(bus)
        guess_waiter = await expect(bus, SpeculativeTranscript, lambda g: g.turn == turn, 60)
        bus.publish(utterance(audio, turn, partial=True))
        guess = await guess_waiter
        final_waiter = await transcript_of(bus, turn)
        bus.publish(utterance(audio, turn))
        return guess, await final_waiter

    guess, final = with_buses(stack.endpoints, ["test"], body)
    assert words(guess.text) == words(final.text)
    assert recall(words(QUESTIONS[2]), words(final.text)) >= 0.8, final.text
    assert (guess.lang, guess.speech_end) == ("en", 1234.5)
    assert guess.compute > 0 and final.compute == guess.compute  # one run, not two


def test_no_guess_goes_out_once_the_final_has_come(stack: Stack, stt: Process) -> None:
    turn = new_id()
    audio = pcm(QUESTIONS[0])

    async def body(bus: Bus) -> list[str]:
        bus.subscribe(SpeculativeTranscript.TOPIC)
        await listening(bus)
        bus.publish(utterance(audio, turn, partial=True))
        bus.publish(utterance(audio, turn))  # long before the partial's run ends
        later = new_id()
        bus.publish(utterance(pcm(QUESTIONS[1]), later))
        seen = []
        while (msg := await bus.recv(timeout=60)) is not None:
            seen.append(f"{type(msg).__name__} {msg.turn}")
            if isinstance(msg, Transcript) and msg.turn == later:
                return seen
        raise AssertionError(f"no transcript of the second question: {seen}")

    seen = with_buses(stack.endpoints, ["test"], body)
    assert [s for s in seen if s.endswith(turn)] == [f"Transcript {turn}"]


def test_speech_that_resumed_is_transcribed_again_from_the_final(
    stack: Stack, stt: Process
) -> None:
    turn = new_id()
    whole = pcm(QUESTIONS[0])
    first_words = whole[: len(whole) // 3 // 2 * 2]

    async def body(bus: Bus) -> Transcript:
        await listening(bus)
        waiter = await transcript_of(bus, turn)
        bus.publish(utterance(first_words, turn, partial=True))
        bus.publish(utterance(whole, turn, partial=True))
        bus.publish(utterance(whole + bytes(3200), turn))  # differs from every partial
        return await waiter

    got = with_buses(stack.endpoints, ["test"], body)
    assert words(got.text) == words(QUESTIONS[0])


def test_audio_in_the_wrong_format_is_a_clear_error_and_an_apology(
    stack: Stack, stt: Process
) -> None:
    turn = new_id()

    async def body(bus: Bus) -> tuple[Error, SpeakRequest]:
        await listening(bus)
        error = await expect(bus, Error, lambda e: e.turn == turn)
        say = await expect(bus, SpeakRequest, lambda s: s.turn == turn)
        bus.publish(Utterance(pcm=bytes(16000), rate=8000, duration=1.0, speech_end=1.0,
                              turn=turn))
        return await error, await say

    error, say = with_buses(stack.endpoints, ["test"], body)
    assert (error.service, error.code) == ("stt", "stt-failed")
    assert "8000 Hz" in error.message
    assert say.kind == "error" and say.final and say.lang == "en" and "Sorry" in say.text
