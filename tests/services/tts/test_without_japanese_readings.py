"""A plain ``pip install -e .`` has no pyopenjtalk-plus (only ``./bootstrap`` installs it): the
TTS still starts with the default tables, English and Italian speak, and Japanese costs one
error per turn naming the fix, logged once. The real Kokoro, the real broker, a sound card."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.errors import ErrorCode
from bus.message import Message, new_id
from bus.messages import Error, Speaking, SpeakRequest, Spoken, SynthesizeRequest, TtsAudio
from services.tts.kokoro.japanese import PYOPENJTALK
from services.tts.kokoro.voice import KokoroVoice, load_kokoro
from services.tts.service import Speaker
from services.tts.synthesis import Job, Line, SynthesisWorker
from services.tts.voices import LanguageUnavailable
from settings import Config
from speaking.volume import Volume, VolumeStore
from tests.helpers.busrun import with_buses
from tests.helpers.soundcard import SoundCard
from tests.helpers.speaker import CACHE, Recorded

JAPANESE = "今日はいい天気ですね。明日も晴れるでしょう。では、また会いましょう。"
"""Three sentences: three pieces at least, one error."""


def names_the_fix(text: str) -> bool:
    return "pyopenjtalk-plus" in text and "./bootstrap setup" in text and (
        f"pip install --no-deps '{PYOPENJTALK}'" in text
    )


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="module")
def started() -> Iterator[tuple[KokoroVoice, list[logging.LogRecord]]]:
    """Kokoro loaded and warmed as the service does, without pyopenjtalk; its start-up log."""
    kept, logger = Kept(), logging.getLogger("services.tts")
    logger.addHandler(kept)
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setitem(sys.modules, "pyopenjtalk", None)  # `import pyopenjtalk` fails
            env.setenv("XDG_CACHE_HOME", str(CACHE))
            voice = load_kokoro(Config())
            yield voice, kept.records
    finally:
        logger.removeHandler(kept)


@pytest.fixture
def voice(started: tuple[KokoroVoice, list[logging.LogRecord]]) -> Iterator[KokoroVoice]:
    with pytest.MonkeyPatch.context() as env:  # still missing while the test runs
        env.setitem(sys.modules, "pyopenjtalk", None)
        yield started[0]


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


def test_the_default_tables_start_and_the_log_names_the_fix_once(
    started: tuple[KokoroVoice, list[logging.LogRecord]],
) -> None:
    voice, records = started
    assert sorted(voice.voices) == ["en", "it", "ja"]
    told = [r for r in records if "pyopenjtalk-plus" in r.getMessage()]
    assert [r.levelno for r in told] == [logging.WARNING], told
    assert names_the_fix(told[0].getMessage()) and "[voice.ja]" in told[0].getMessage()
    assert voice.unavailable("ja") and not voice.unavailable("en") and not voice.unavailable("it")


@pytest.mark.parametrize(
    ("lang", "text"),
    [("en", "The weather is fine today."), ("it", "Oggi il tempo è bello.")],
)
def test_english_and_italian_still_speak(voice: KokoroVoice, lang: str, text: str) -> None:
    samples = voice.synthesize(text, lang)
    assert 0.8 < len(samples) / voice.sample_rate < 4.0
    assert rms(samples) > 0.02  # speech, not silence
    streamed = np.concatenate(list(voice.stream(text, lang, 0.0)))
    assert rms(streamed) > 0.02


def test_a_japanese_piece_fails_naming_the_fix(voice: KokoroVoice) -> None:
    with pytest.raises(LanguageUnavailable) as raised:
        voice.synthesize("今日は。", "ja")
    assert names_the_fix(str(raised.value))
    with pytest.raises(LanguageUnavailable):
        list(voice.stream("今日は。", "ja", 0.0))


def test_each_japanese_turn_is_one_failure_and_the_log_tells_it_once(
    voice: KokoroVoice, caplog: pytest.LogCaptureFixture
) -> None:
    playback, failures, left = Recorded(), [], threading.Semaphore(0)
    worker = SynthesisWorker(
        voice, Volume(1.0), playback, lambda _: left.release(),
        lambda line, error: failures.append((line.turn, error)),
    )
    lines = [Line("t1", JAPANESE, "ja"), Line("t1", "また明日。", "ja", seq=1),
             Line("t2", "Good morning.", "en"), Line("t3", JAPANESE, "ja")]
    worker.start()
    with caplog.at_level(logging.DEBUG, logger="services.tts.synthesis"):
        for line in lines:
            worker.put(Job(line=line))
        for _ in lines:
            assert left.acquire(timeout=60)
    worker.close()
    assert [turn for turn, _ in failures] == ["t1", "t3"]
    assert all(names_the_fix(error) for _, error in failures)
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(errors) == 1 and names_the_fix(errors[0].getMessage()), errors
    english = [s for s in playback.segments if s.tag is lines[2] and s.pcm.strip(b"\0")]
    assert english and all(s.tag is lines[2] for s in playback.segments if s.pcm.strip(b"\0"))


def test_the_speaker_speaks_english_and_tells_a_japanese_turn_once(
    voice: KokoroVoice, module_broker: Endpoints, portaudio_card: SoundCard, tmp_path: Path
) -> None:
    ja, en, asked = new_id(), new_id(), SynthesizeRequest(text="はい。", lang="ja")

    async def body(test: Bus) -> list[Message]:
        test.publish(SpeakRequest(text=JAPANESE, lang="ja", seq=0, turn=ja))
        test.publish(SpeakRequest(text="では。", lang="ja", seq=1, final=True, turn=ja))
        test.publish(SpeakRequest(text="Good morning to you.", lang="en", final=True, turn=en))
        test.publish(asked)  # the Wyoming server's request: its final chunk says why
        got: list[Message] = []
        while not (any(isinstance(m, Spoken) and m.turn == en for m in got)
                   and any(isinstance(m, TtsAudio) and m.final for m in got)):
            msg = await test.recv(timeout=60)
            assert msg is not None, f"not all came: {got}"
            got.append(msg)
        return got

    async def session(speaker_bus: Bus, test: Bus) -> list[Message]:
        return await the_speaker_on(speaker_bus, test, voice, tmp_path, body)

    got = with_buses(module_broker, ["tts", "test"], session)
    errors = [m for m in got if isinstance(m, Error)]
    assert [(m.turn, m.code) for m in errors] == [(ja, ErrorCode.TTS_SYNTHESIS_FAILED)], errors
    assert names_the_fix(errors[0].message)
    spoken = [m for m in got if isinstance(m, Spoken)]
    assert [(m.turn, m.text) for m in spoken] == [(en, "Good morning to you.")]
    assert spoken[0].duration > 0.5
    (final,) = [m for m in got if isinstance(m, TtsAudio) and m.reply_to == asked.id]
    assert final.final and names_the_fix(final.error)


async def the_speaker_on(
    speaker_bus: Bus, test: Bus, voice: KokoroVoice, state: Path,
    body: Callable[[Bus], Awaitable[list[Message]]],
) -> list[Message]:
    """The speaker on ``voice`` in this process, on ``speaker_bus``, while ``body(test)`` runs."""
    speaker = Speaker(speaker_bus, Config().audio, voice,
                      Volume(1.0, VolumeStore(state / "volume.json")))
    Speaker.subscribe(speaker_bus)
    test.subscribe(Speaking.TOPIC, Spoken.TOPIC, Error.TOPIC, TtsAudio.TOPIC)
    await speaker_bus.wait_path(test)
    await test.wait_path(speaker_bus)
    running = asyncio.ensure_future(speaker.run())
    try:
        return await body(test)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
