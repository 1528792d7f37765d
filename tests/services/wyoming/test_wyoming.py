"""The Wyoming server as a real process, spoken to by the wyoming package's own client.

Real broker, real STT (embedded Whisper), real speaker (Kokoro) and a real dialogue
on a scripted LLM: what Home Assistant would reach on port 10300.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import numpy as np
import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)
from wyoming.wake import Detect, Detection, NotDetected

from bus.client import Bus
from bus.errors import ErrorCode
from bus.message import Message, new_id
from bus.messages import Error as BusError
from bus.messages import Heartbeat, SpeakRequest, Utterance
from bus.messages import Transcript as BusTranscript
from hearing.convert import decode_file
from tests.helpers import llm_chunks
from tests.helpers.busrun import with_buses
from tests.helpers.hearing import at_16k, transcribe
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.ports import free_port
from tests.helpers.service_stack import Stack, wait_state
from tests.helpers.speaker import CACHE, NO_SOUND_SERVER
from tests.helpers.speech import spoken
from tests.helpers.words import recall, words

QUESTION = "What is the weather like in Rome tomorrow?"
SENTENCE = "The kitchen light is now switched off."


class Server:
    def __init__(self, stack: Stack, port: int, llm: ScriptedLLM) -> None:
        self.stack = stack
        self.port = port
        self.llm = llm

    async def client(self) -> AsyncTcpClient:
        client = AsyncTcpClient("127.0.0.1", self.port)
        await client.connect()
        return client


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    port = free_port()
    with ScriptedLLM() as llm:
        config = f'[whisper]\nbackend = "embedded"\n[wyoming]\nenabled = true\nport = {port}\n'
        stack = Stack(config, top=f'llm = "{llm.url}"\n')
        try:
            env = {"PULSE_SERVER": NO_SOUND_SERVER, "XDG_CACHE_HOME": str(CACHE)}
            for module in ("services.stt", "services.tts", "services.dialogue", "services.wyoming"):
                stack.start(module, env=env)

            async def ready(bus: Bus) -> None:
                await wait_state(bus, "stt", "ready", timeout=180)
                await wait_state(bus, "wyoming", "ready", timeout=60)
                await bus.wait_for(Heartbeat, lambda h: h.service == "tts"
                                   and h.state in ("ready", "degraded"), timeout=180)

            with_buses(stack.endpoints, ["test"], ready)
            yield Server(stack, port, llm)
        finally:
            stack.close()


async def read_until(client: AsyncTcpClient, *types: str, timeout: float = 120) -> list[Event]:
    """Every event up to and including the first of one of ``types``."""
    events = []
    async with asyncio.timeout(timeout):
        while True:
            event = await client.read_event()
            assert event is not None, "the server hung up"
            events.append(event)
            if event.type in types:
                return events


def pcm16(events: list[Event]) -> tuple[bytes, int]:
    chunks = [AudioChunk.from_event(e) for e in events if AudioChunk.is_type(e.type)]
    start = next(AudioStart.from_event(e) for e in events if AudioStart.is_type(e.type))
    assert all(chunk.rate == start.rate and chunk.width == 2 for chunk in chunks)
    return b"".join(chunk.audio for chunk in chunks), start.rate


def heard(pcm: bytes, rate: int) -> str:
    samples = np.frombuffer(pcm, "<i2").astype(np.float32) / 32768
    return transcribe(at_16k(samples, rate))


async def send_speech(client: AsyncTcpClient, text: str, after: bytes = b"") -> None:
    await send_audio(client, b"".join(decode_file(spoken(text))) + after)  # 16 kHz PCM16


async def send_audio(client: AsyncTcpClient, audio: bytes) -> None:
    await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
    for at in range(0, len(audio), 3200):
        await client.write_event(
            AudioChunk(rate=16000, width=2, channels=1, audio=audio[at:at + 3200]).event())
    await client.write_event(AudioStop().event())


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_describe_lists_our_speech_to_text_and_streaming_voices(server: Server) -> None:
    async def body() -> Info:
        client = await server.client()
        await client.write_event(Describe().event())
        events = await read_until(client, "info")
        await client.disconnect()
        return Info.from_event(events[-1])

    info = run(body())
    assert info.asr and info.asr[0].models[0].languages == ["en", "it", "ja"]
    assert info.asr[0].models[0].name == "faster-whisper base"
    voices = {voice.name: voice.languages for voice in info.tts[0].voices}
    assert voices == {"it": ["it"], "en": ["en", "en-us"], "ja": ["ja"]}
    assert info.tts[0].supports_synthesize_streaming


async def listening(bus: Bus) -> None:
    bus.subscribe("")
    await bus.wait_connected()


async def until_a_voice_turn_is_answered(bus: Bus) -> list[Message]:
    """Ask a voice question on the bus, and return every message up to its spoken answer.

    The STT and the dialogue take messages in order, and one broker carries them all:
    whatever they said about an earlier utterance reaches us before this answer.
    """
    question = Utterance(pcm=b"".join(decode_file(spoken(QUESTION))), rate=16000,
                         duration=3.0, speech_end=0.0, turn=new_id())
    bus.publish(question)
    seen: list[Message] = []
    async with asyncio.timeout(120):
        while True:
            msg = await bus.recv(timeout=120)
            assert msg is not None
            seen.append(msg)
            if isinstance(msg, SpeakRequest) and msg.turn == question.turn:
                return seen


def said_about(seen: list[Message], purpose: str) -> tuple[str | None, list[Message]]:
    """The turn of the one utterance of ``purpose``, and the speech requested for it."""
    (utterance,) = [m for m in seen if isinstance(m, Utterance) and m.purpose == purpose]
    return utterance.turn, [m for m in seen if isinstance(m, SpeakRequest)
                            and m.turn == utterance.turn]


def test_a_spoken_question_comes_back_as_text_and_no_one_answers_it(server: Server) -> None:
    server.llm.reset()
    server.llm.default = llm_chunks.text("It will be sunny.")

    async def body(bus: Bus) -> tuple[Transcript, list[Message]]:
        await listening(bus)
        client = await server.client()
        await client.write_event(Transcribe(language="en").event())
        await send_speech(client, QUESTION)
        events = await read_until(client, "transcript", "error")
        await client.disconnect()
        return Transcript.from_event(events[-1]), await until_a_voice_turn_is_answered(bus)

    got, seen = with_buses(server.stack.endpoints, ["test"], body)
    assert recall(words(QUESTION), words(got.text)) >= 0.8, got.text
    assert got.language == "en"
    turn, spoken_for_it = said_about(seen, "transcribe")
    assert any(isinstance(m, BusTranscript) and m.turn == turn for m in seen)
    assert spoken_for_it == []
    assert len(server.llm.requests) == 1  # the voice turn's, not the transcription's


def test_a_sentence_is_spoken_back_in_the_voice_of_its_language(server: Server) -> None:
    async def body() -> list[Event]:
        client = await server.client()
        await client.write_event(
            Synthesize(text=SENTENCE, voice=SynthesizeVoice(language="en_US")).event())
        events = await read_until(client, "audio-stop", "error")
        await client.disconnect()
        return events

    events = run(body())
    assert events[0].type == "audio-start" and events[-1].type == "audio-stop"
    pcm, rate = pcm16(events)
    assert rate == 24000
    chunks = [e for e in events if AudioChunk.is_type(e.type)]
    assert len(chunks) > 2  # sent piece by piece, not as one clip
    assert recall(words(SENTENCE), words(heard(pcm, rate))) >= 0.8


def test_streamed_text_is_spoken_sentence_by_sentence(server: Server) -> None:
    text = "Good morning. It is sunny in Rome today, with a light wind from the sea."

    async def body() -> tuple[list[Event], list[Event]]:
        client = await server.client()
        await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name="en")).event())
        first, rest = text.split(" It ", 1)
        await client.write_event(SynthesizeChunk(text=first + " It").event())
        await client.write_event(SynthesizeChunk(text=" ").event())
        # The first sentence is heard before the rest of the text exists.
        early = await read_until(client, "audio-chunk")
        await client.write_event(SynthesizeChunk(text=rest).event())
        # Home Assistant also sends the whole text for servers that do not stream: ignored.
        await client.write_event(Synthesize(text=text).event())
        await client.write_event(SynthesizeStop().event())
        late = await read_until(client, "synthesize-stopped", "error")
        await client.disconnect()
        return early, late

    early, late = run(body())
    assert [e.type for e in early] == ["audio-start", "audio-chunk"]
    assert [e.type for e in late[-2:]] == ["audio-stop", "synthesize-stopped"]
    assert not any(e.type == "audio-start" for e in late)
    pcm, rate = pcm16(early + late)
    assert recall(words(text), words(heard(pcm, rate))) >= 0.8


def test_bad_input_gets_an_error_and_the_server_goes_on(server: Server) -> None:
    async def body() -> list[Error]:
        client = await server.client()
        errors = []
        for event in (
            AudioChunk(rate=16000, width=2, channels=1, audio=b"\0\0" * 160).event(),
            Synthesize(text="Hello.", voice=SynthesizeVoice(name="nobody")).event(),
            Synthesize(text="word " * 3000).event(),
            SynthesizeChunk(text="no start").event(),
        ):
            await client.write_event(event)
            errors.append(Error.from_event((await read_until(client, "error", "audio-stop"))[-1]))
        # The same connection still serves.
        await client.write_event(Describe().event())
        assert (await read_until(client, "info"))[-1].type == "info"
        await client.disconnect()
        return errors

    errors = run(body())
    assert [e.code for e in errors] == ["bad-order", "unknown-voice", "too-long", "bad-order"]
    assert "audio-chunk before audio-start" in errors[0].text
    assert "'nobody'" in errors[1].text and "en" in errors[1].text


def test_the_wake_word_is_detected_by_its_model_and_other_speech_is_not(server: Server) -> None:
    async def detect(text: str) -> Event:
        client = await server.client()
        await client.write_event(Detect().event())
        await send_speech(client, text, after=bytes(32000))  # 1 s of silence after the word
        events = await read_until(client, "detection", "not-detected", "error")
        await client.disconnect()
        return events[-1]

    async def body() -> tuple[Event, Event]:
        return await detect("Okay Nabu."), await detect("Set a timer for ten minutes.")

    word, other = run(body())
    assert Detection.is_type(word.type), word
    assert Detection.from_event(word).name == "okay_nabu"
    assert NotDetected.is_type(other.type), other


def test_a_satellite_s_wake_stream_needs_no_audio_start_and_wakes_again(server: Server) -> None:
    """``wyoming-satellite`` with us as its wake word service sends ``detect`` then its
    mic's chunks, with no ``audio-start``, and ``detect`` again on the same connection
    after each turn: every ``detect`` must be able to wake it anew."""
    word = b"".join(decode_file(spoken("Okay Nabu."))) + bytes(32000)  # 1 s of silence

    async def body() -> list[Event]:
        client = await server.client()
        answers = []
        for _ in range(2):
            await client.write_event(Detect(names=["okay_nabu"]).event())
            for at in range(0, len(word), 3200):
                await client.write_event(AudioChunk(rate=16000, width=2, channels=1,
                                                    audio=word[at:at + 3200]).event())
            answers.append((await read_until(client, "detection", "error"))[-1])
        await client.disconnect()
        return answers

    answers = run(body())
    assert [event.type for event in answers] == ["detection", "detection"], answers


def test_a_failed_transcription_is_an_error_to_the_client_and_nobody_apologizes(
        server: Server) -> None:
    """A transcribe-only utterance is Home Assistant's, which reports the failure itself:
    neither the STT nor the dialogue may speak an apology here, nor ask the LLM."""
    server.llm.reset()
    server.llm.default = llm_chunks.text("It will be sunny.")
    too_long = bytes(16000 * 2 * 20)  # 20 s: more than the STT takes from one utterance

    async def body(bus: Bus) -> tuple[Error, list[Message]]:
        await listening(bus)
        client = await server.client()
        await client.write_event(Transcribe(language="en").event())
        await send_audio(client, too_long)
        error = Error.from_event((await read_until(client, "error", "transcript"))[-1])
        await client.disconnect()
        return error, await until_a_voice_turn_is_answered(bus)

    error, seen = with_buses(server.stack.endpoints, ["test"], body)
    assert error.code == "stt-failed" and "longer than" in error.text, error
    turn, spoken_for_it = said_about(seen, "transcribe")
    (failed,) = [m for m in seen if isinstance(m, BusError) and m.code == ErrorCode.STT_FAILED]
    assert failed.turn == turn
    assert spoken_for_it == []
    assert len(server.llm.requests) == 1  # the voice turn's
    assert "Rome" in str(server.llm.requests[0]["messages"][-1])
