"""An Italian question answered in Italian by the whole assistant with no language model
(``llm = ""``): the spoken question goes through the mic, the STT (a whisper-server
stand-in that hears it as Italian), the local intents and the speaker.

The test's speech has no Italian voice to ask with, and the embedded Whisper hears the
installed voices' Italian as Japanese: the stand-in plays the part of a recognizer that
heard the Italian right, so that everything else runs as it does for an Italian user."""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from bus.messages import SpeakRequest, Spoken, TraceMark
from hearing.stt.packaged import model_source
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.whisper_process import Whisper
from tests.helpers.words import recall, words
from tests.system.e2e.world import voice_turn
from tests.system.startup.no_llm import running, without_llm

QUESTION = "Che ore sono?"


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    assistant = without_llm("WHISPER\n")
    whisper = Whisper(assistant.root, text=f" {QUESTION}\n")
    whisper.script(text=f" {QUESTION}\n", language="italian")
    config = assistant.folder / "config.toml"
    config.write_text(config.read_text().replace("WHISPER\n", whisper.config(15)))
    whisper.start()
    try:
        with running(assistant) as started:
            yield started
    finally:
        whisper.stop()


@functools.cache
def _multilingual() -> Any:
    from faster_whisper import WhisperModel

    path, files = model_source("base")
    return WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=2, files=files)


def heard_in_italian(samples: np.ndarray) -> str:
    segments, _ = _multilingual().transcribe(samples.astype(np.float32), language="it",
                                            beam_size=1)
    return " ".join(segment.text.strip() for segment in segments)


def test_an_italian_question_is_answered_aloud_in_italian(assistant: Assistant) -> None:
    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            turn = await voice_turn(assistant, rec, QUESTION)
            assert turn.transcript.lang == "it", turn.transcript
            marks = [m.detail for m in rec.of(TraceMark, turn.turn) if m.stage == "intent"]
            assert marks == ["HassGetCurrentTime"], marks
            assert re.match(r"Sono le \d\d?:\d\d", turn.reply.text), turn.reply.text
            said = [m for m in rec.of(SpeakRequest, turn.turn) if m.text]
            assert said and {m.lang for m in said} == {"it"}, said
            played = [m for m in rec.of(Spoken, turn.turn) if m.text]
            assert [(m.text, m.lang) for m in played] == [(turn.reply.text, "it")], played
            _, answer = turn.question_and_answer()
            # Played, and heard as Italian: the time itself is spoken as Italian number
            # words ("sedici e tredici"), which the base model writes oddly, sometimes
            # gluing the article to the hour ("l'ediccio" for "le diciotto"): half of the
            # two fixed words, and more words after them for the time itself. A stray kana
            # glued to a word ("sonoね") is the model's, not Italian: letters outside the
            # Latin ones are dropped first.
            heard = words(re.sub(r"[^\x00-\u024f]", " ", heard_in_italian(answer)))
            assert recall(["sono", "le"], heard) >= 0.5 and len(heard) >= 3, (
                turn.reply.text,
                heard,
            )

    asyncio.run(scenario())
