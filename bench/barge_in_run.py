"""The barge-in benchmark's runs on the whole assistant (the method: ``bench/barge_in.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from bench.barge_in_audio import locate, time_to_silence, trimmed, voiced_bounds
from bench.ear import RATE, Ear, resample_to_ear
from bench.wake import WORD
from bus.messages import BargeIn, Interrupted, ListenClosed, Speaking, Spoken, Transcript
from tests.helpers import llm_chunks
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.room import MIC_SINK, RoomOnCard
from tests.helpers.speech import padded, read_wav, spoken, write_wav

ASK = "Okay Nabu. Tell me about the history of Rome."
QUESTION = "What is the weather like in Rome tomorrow?"
"""The plain speech that interrupts with echo cancellation on."""
LONG = [
    "The story of Rome begins on seven hills beside the river Tiber almost three thousand "
    "years ago. ",
    "A small town of farmers and traders grew there into the largest city the ancient world "
    "had ever seen. ",
    "For five hundred years the Romans were ruled by two consuls whom the citizens elected "
    "every single year. ",
    "Then Augustus made himself the first emperor and the empire knew two centuries of "
    "peace and trade. ",
    "The city filled with temples and baths and theatres and the roads it built reached "
    "every corner of Europe. ",
    "Its laws and its language still shape the way half the world speaks and governs "
    "itself today. ",
]
"""Long sentences without commas: the speaker plays few pauses, where a run's word may fall."""
DELAYS = (0.0, 0.35, 0.7, 1.05)
"""Seconds of the answer let play after its first sentence (second, with echo cancellation:
the canceller has had seconds of echo to adapt on), in turn from run to run."""
MIN_SCORE = 0.5
"""Below this correlation the interrupting clip was not found in the recording."""
BARGE_IN_TIMEOUT, QUESTION_TIMEOUT, TURN_TIMEOUT = 10.0, 30.0, 120.0
NOT_ASKED = "question not answered"
"""The run's ``failure`` when the question went unheard (or its answer never played)."""
ALREADY_SILENT = "already silent"
"""The run's ``failure`` when nothing of the answer sounded after the word: it fell in a
pause between the pieces the speaker plays, and no time to silence can be read."""


@dataclass(frozen=True)
class Interruption:
    """One run; times in seconds from the word's end (speech start, with echo cancel)."""

    delay: float
    silent_after: float | None
    """To the answer's last audible sample at the card; None: see ``failure``."""
    barge_in: float | None
    """To the ``audio.barge_in`` message's timestamp (approximate: the bus's clock)."""
    reported: float | None
    """To the fade's end as the speaker reports it (``tts.interrupted`` ``silent``)."""
    score: float
    """How surely the interruption was found in the recording (normalized correlation)."""
    failure: str = ""
    over_answer_db: float | None = None
    """In the room: the interruption's level over the answer's echo in the second before it,
    as the mic heard them (dB of mean square)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The long answer to every question but the interrupting one (by its words: a guess
    the dialogue drops makes a request too)."""
    asked = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    if "weather" in str(asked).lower():
        return llm_chunks.text("Sunny and warm.")
    return llm_chunks.text(*LONG)


@dataclass(frozen=True)
class Setup:
    say: Callable[[Path], None]
    ask: Path
    interruption: Path
    clip: np.ndarray
    """The interruption as played (trimmed after its voiced end), at the recording's rate."""
    card_ear: Ear
    user_ear: Ear
    """Where the user's voice is recorded: the card's sink, or the room's."""
    echo: bool
    """In the room (the canceller's): the answer has played two sentences before a run."""
    word: bool
    """The interruption is the wake word (times from its end), not a question (its start)."""


def interruption_clip(text: str, folder: Path, gain_db: float = 0.0) -> tuple[Path, np.ndarray]:
    """The WAV to play (0.1 s of silence, then the trimmed speech, ``gain_db`` louder) and
    the clip to find."""
    samples, rate = read_wav(spoken(text))
    cut = trimmed(samples, rate) * 10 ** (gain_db / 20)
    wav = write_wav(folder / "interruption.wav",
                    np.concatenate([np.zeros(round(0.1 * rate), np.float32), cut]), rate)
    _, end = voiced_bounds(cut)
    return wav, resample_to_ear(cut[: end + round(0.01 * rate)], rate)


def interrupt_runs(
    config: str, echo: bool, runs: int, log: TextIO, word: bool | None = None,
    gain_db: float = 0.0,
) -> list[Interruption]:
    """Start the assistant (with the room, for echo cancellation), interrupt it ``runs``
    times, by the wake word (``word``; by default, without the room) or a question, played
    ``gain_db`` louder than recorded; stop it."""
    with whole_assistant(config, echo, log) as (assistant, room):
        assistant.llm.responder = answer
        by_word = not echo if word is None else word
        return asyncio.run(_runs(assistant, room, runs, log, by_word, gain_db))


@contextlib.contextmanager
def whole_assistant(
    config: str, echo: bool, log: TextIO
) -> Iterator[tuple[Assistant, RoomOnCard | None]]:
    """The assistant started, every process real (with the room, for echo cancellation);
    its processes' logs go to ``log`` if anything fails; all stopped at the end."""
    services = ["stt", "dialogue", "tts"] + ([] if echo else ["mic"])
    assistant = Assistant(sound=True, tools=(), services=services, config=config)
    room = None
    try:
        assistant.start(timeout=300)
        assert assistant.card is not None
        if echo:  # the mic after the room: it records the room's sink
            room = RoomOnCard(assistant.card, delay=0.08, gain=0.5, noise=0.002).start()
            assistant.start_service("mic")
            asyncio.run(assistant.wait_ready(["mic"], 300))
        yield assistant, room
    except BaseException:
        print(assistant.logs(), file=log)
        raise
    finally:
        if room is not None:
            room.stop()
        assistant.close()


async def _runs(
    assistant: Assistant, room: RoomOnCard | None, runs: int, log: TextIO, word: bool,
    gain_db: float,
) -> list[Interruption]:
    card = assistant.card
    assert card is not None
    wav, clip = interruption_clip(WORD if word else QUESTION, assistant.root, gain_db)
    card_ear = Ear(card).start()
    user_ear = Ear(card, f"{MIC_SINK}.monitor").start() if room else card_ear
    setup = Setup(room.play if room else card.play, padded(ASK, assistant.root)[0], wav, clip,
                  card_ear, user_ear, room is not None, word)
    results = []
    try:
        async with Recorder(assistant, "bench") as rec:
            await rec.drain(1.0)
            for number in range(runs):
                result = await _run(rec, setup, DELAYS[number % len(DELAYS)])
                results.append(result)
                print(f"  run {number + 1}: {result}", file=log, flush=True)
    finally:
        for ear in {card_ear, user_ear}:
            ear.stop()
    return results


async def _run(rec: Recorder, setup: Setup, delay: float) -> Interruption:
    started = time.time()
    await asyncio.to_thread(setup.say, setup.ask)
    sentences = 2 if setup.echo else 1
    try:
        turn = (await rec.until(Transcript, lambda t: t.ts >= started, QUESTION_TIMEOUT)).turn
        await rec.until(Spoken, lambda s: s.turn == turn and len(rec.of(Spoken, turn)) >= sentences,
                        TURN_TIMEOUT)
    except AssertionError:  # no answer to interrupt: no run, but the next may have one
        with contextlib.suppress(AssertionError):
            await rec.until(ListenClosed, lambda m: m.ts >= started, QUESTION_TIMEOUT)
        rec.seen.clear()
        return Interruption(delay, None, None, None, 0.0, NOT_ASKED)
    await rec.drain(delay)  # the answer plays on: sound card time, not a wait for a message
    # A second of the answer alone before the interruption too (its level: over_answer).
    user_mark = max(0, setup.user_ear.position() - RATE)
    card_mark = setup.card_ear.position()
    await asyncio.to_thread(setup.say, setup.interruption)
    barge_in = cut = None
    try:
        barge_in = await rec.until(BargeIn, lambda b: b.interrupted == turn, BARGE_IN_TIMEOUT)
        cut = await rec.until(Interrupted, lambda m: m.reply_to == barge_in.id, BARGE_IN_TIMEOUT)
    except AssertionError:
        pass  # not interrupted: the answer plays to its end
    silent = await rec.until(Speaking, lambda m: m.turn == turn and not m.speaking, TURN_TIMEOUT)
    await rec.drain(0.5)  # the fade's last samples reach the recording
    result = measure(setup, user_mark, card_mark, delay, barge_in, cut)
    # Back to waiting for the word (after the next question's answer, with echo cancel).
    await rec.until(ListenClosed, lambda m: m.ts > silent.ts, TURN_TIMEOUT)
    rec.seen.clear()
    return result


def measure(
    setup: Setup, user_mark: int, card_mark: int, delay: float,
    barge_in: BargeIn | None, cut: Interrupted | None,
) -> Interruption:
    heard = setup.user_ear.samples(user_mark)
    at, score = locate(heard, setup.clip)
    first, end = voiced_bounds(setup.clip)
    point = at + (end if setup.word else first)
    epoch = setup.user_ear.epoch(user_mark + point)
    bus = (None if barge_in is None else round(barge_in.ts - epoch, 4),
           None if cut is None else round(cut.silent - epoch, 4))
    failure = ("no barge-in" if barge_in is None
               else "interruption not found" if score < MIN_SCORE else "")
    over = over_answer(heard, at + first, at + end) if setup.echo else None
    if failure:
        return Interruption(delay, None, *bus, round(score, 3), failure, over)
    card = setup.card_ear.samples(card_mark)
    start = round((epoch - setup.card_ear.epoch(0)) * RATE) - card_mark
    # After a question, up to its end: the answer to it may follow.
    seconds = time_to_silence(card, start, None if setup.word else end - first)
    if seconds is None:
        return Interruption(delay, None, *bus, round(score, 3), ALREADY_SILENT, over)
    return Interruption(delay, round(seconds, 4), *bus, round(score, 3), "", over)


def over_answer(heard: np.ndarray, first: int, end: int) -> float | None:
    """dB the interruption (``heard[first:end]``, the answer's echo under it) stands over
    the echo alone in the second before it; None without that second."""
    before = heard[max(0, first - RATE) : first]
    if len(before) < RATE // 2:
        return None
    power = float(np.mean(heard[first:end] ** 2)), float(np.mean(before**2))
    return round(10 * float(np.log10(max(power[0], 1e-12) / max(power[1], 1e-12))), 1)
