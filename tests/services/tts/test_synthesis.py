"""The synthesis thread with the real Kokoro: a reply's first piece plays in two chunks."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from services.tts.kokoro.voice import KokoroVoice
from services.tts.pcm import Samples
from services.tts.playback import Segment
from services.tts.synthesis import Job, Line, SynthesisWorker
from speaking.volume import Volume
from tests.helpers.speaker import Recorded


def run(
    synth: object, text: str, shortest: int = 16, lang: str = "en"
) -> tuple[list[Segment], list[str]]:
    playback, failures, finished = Recorded(), [], threading.Event()
    worker = SynthesisWorker(
        synth,  # type: ignore[arg-type]
        Volume(1.0), playback, lambda _: finished.set(),
        lambda _line, error: failures.append(error), shortest=shortest,
    )
    worker.start()
    worker.put(Job(line=Line(turn="t", text=text, lang=lang)))
    assert finished.wait(60)
    worker.close()
    return [s for s in playback.segments if s.pcm], failures


def test_the_first_piece_is_queued_in_two_chunks_as_each_is_ready(voice: KokoroVoice) -> None:
    segments, failures = run(voice, "It is a quarter past ten.", shortest=100)  # one piece
    assert not failures
    first, second = [s for s in segments if s.pcm.strip(b"\0")]  # and the pause after it
    assert first.compute < second.compute  # the head is short; the rest took longer
    assert second.made - first.made > 0.9 * second.compute  # the head was queued first
    heard = np.frombuffer(b"".join(s.pcm for s in segments), "<i2")
    assert np.sqrt(np.mean((heard / 32768.0) ** 2)) > 0.02  # speech, not silence


class FailsAfterItsHead:
    """A backend whose second chunk fails (a broken model file, out of memory...)."""

    sample_rate = 24000
    short_first_piece = True

    def __init__(self) -> None:
        self.asked: list[str] = []

    def synthesize(self, text: str, lang: str) -> Samples:
        return np.full(2400, 0.1, np.float32)

    def stream(self, text: str, lang: str, queued: float) -> Iterator[Samples]:
        self.asked.append(text)
        yield self.synthesize(text, lang)
        if text.startswith("Broken"):
            raise RuntimeError("decoder failed")
        yield self.synthesize(text, lang)


def test_a_chunk_that_fails_skips_the_rest_of_its_piece_only() -> None:
    backend = FailsAfterItsHead()
    segments, failures = run(backend, "Broken words here; the next piece is fine.")
    assert len(failures) == 1 and "decoder failed" in failures[0]
    assert backend.asked[0] in failures[0] and len(backend.asked) >= 2
    speech = [s for s in segments if s.pcm.strip(b"\0")]  # not the pauses after a clause
    assert len(speech) == 1 + 2 * (len(backend.asked) - 1)  # the broken head, then all


def test_the_voice_is_handed_a_clock_time_in_words_of_the_language() -> None:
    """espeak-ng reads "08:49" as "zero otto quarantanove"; the voice gets "8 e 49"
    (services/tts/clock.py)."""
    backend = FailsAfterItsHead()
    _, failures = run(backend, "Sono le 08:49", lang="it")
    assert not failures and backend.asked == ["Sono le 8 e 49"], backend.asked
