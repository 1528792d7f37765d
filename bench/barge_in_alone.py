"""The barge-in benchmark's ``--talk-alone`` mode: the assistant talks alone in the room, and
every reaction of the mic to its own voice is counted (the method: ``bench/barge_in.py``).

A question is said into the room (the wake word first); while its long answer plays, and in
the follow-up window after it, nobody speaks: each ``audio.barge_in`` is a self-interruption,
and each wake word, speech onset or transcript of a turn that no question started was
triggered by the assistant's own voice. Then the next question, until enough speech played.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bench.barge_in_answers import TOPICS
from bench.barge_in_run import QUESTION_TIMEOUT, TURN_TIMEOUT, whole_assistant
from bus.message import Message
from bus.messages import (
    BargeIn,
    Interrupted,
    ListenClosed,
    Speaking,
    SpeechStarted,
    Spoken,
    Transcript,
    WakeWordHeard,
)
from tests.helpers import llm_chunks
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.room import RoomOnCard
from tests.helpers.speech import padded

QUIET = 1.5
"""Seconds without a new sound or turn after the mic closed: the assistant is done."""
SETTLE_ROUNDS = 20
"""Times the assistant may begin again (answering its own voice) before the next question is
asked anyway: a run where it keeps talking to itself still ends."""
UNHEARD_IN_A_ROW = 3
"""Questions in a row with no answer end the run: the assistant no longer hears the room."""
OWN_VOICE = {BargeIn: "barge_in", WakeWordHeard: "wake", SpeechStarted: "speech_started",
             Transcript: "transcript"}
"""What the mic (and the STT after it) publish when they take the assistant's voice for a
user's, by the key each is counted under."""
BEGINNINGS = (Speaking, SpeechStarted, WakeWordHeard)
"""Something began: the assistant is not quiet yet."""


@dataclass
class Tally:
    """What has played and what the assistant's own voice triggered, so far."""

    spoken_s: float = 0.0
    answers: list[dict[str, Any]] = field(default_factory=list)
    unheard: int = 0
    """Questions the assistant did not answer (no wake word, or no transcript, in time)."""
    own_voice: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self, seen: Iterable[Message], question: str, turn: str | None, answered: bool,
        began: float,
    ) -> None:
        """Count one question's messages; ``turn`` is the one its wake word started."""
        seen = list(seen)
        spoken = sum(m.duration for m in seen if isinstance(m, Spoken))
        self.spoken_s += spoken
        if not answered:
            self.unheard += 1
        else:
            cut = any(isinstance(m, Interrupted) and m.turn == turn for m in seen)
            self.answers.append({"question": question, "turn": turn,
                                 "spoken_s": round(spoken, 2), "interrupted": cut})
        self.own_voice += own_voice(seen, {turn} if turn else set(), began)

    def counts(self) -> dict[str, int]:
        return {key: sum(e["kind"] == key for e in self.own_voice) for key in OWN_VOICE.values()}


def own_voice(seen: Iterable[Message], questions: set[str], began: float) -> list[dict[str, Any]]:
    """The messages its own voice caused: every barge-in, and every wake word, speech onset
    and transcript of a turn that none of ``questions`` started; ``at_s``: seconds since
    ``began``."""
    found = []
    for msg in seen:
        kind = OWN_VOICE.get(type(msg))
        if kind is None or (kind != "barge_in" and msg.turn in questions):
            continue
        event: dict[str, Any] = {"kind": kind, "at_s": round(msg.ts - began, 2), "turn": msg.turn}
        if isinstance(msg, BargeIn):
            event["reason"] = msg.reason
        if isinstance(msg, Transcript):
            event["text"] = msg.text
        found.append(event)
    return found


class Answers:
    """The scripted LLM's side: every request gets the current question's answer (by the
    question asked, not by what was heard: a guess the dialogue drops, or a turn of the
    assistant's own voice, asks too)."""

    def __init__(self) -> None:
        self.current = 0

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        return llm_chunks.text(*TOPICS[self.current % len(TOPICS)][1])


def talk_alone(config: str, minutes: float, log: TextIO) -> tuple[Tally, float]:
    """Start the assistant in the room, ask until ``minutes`` of its speech played, stop it;
    the tally and the seconds it took."""
    with whole_assistant(config, True, log) as (assistant, room):
        assert room is not None
        answers = Answers()
        assistant.llm.responder = answers
        said = [padded(question, assistant.root)[0] for question, _ in TOPICS]
        began = time.time()
        tally = asyncio.run(_questions(assistant, room, said, answers, minutes, log))
        return tally, time.time() - began


async def _questions(
    assistant: Assistant, room: RoomOnCard, said: list[Path], answers: Answers, minutes: float,
    log: TextIO,
) -> Tally:
    tally, began, unheard = Tally(), time.time(), 0
    async with Recorder(assistant, "bench") as rec:
        await rec.drain(1.0)
        while tally.spoken_s < 60 * minutes:
            index = answers.current % len(TOPICS)
            turn, answered = await _ask(rec, room, said[index])
            tally.add(rec.seen, TOPICS[index][0], turn, answered, began)
            rec.seen.clear()
            answers.current += 1
            unheard = 0 if answered else unheard + 1
            if unheard == UNHEARD_IN_A_ROW:
                raise RuntimeError(f"{unheard} questions in a row went unanswered")
            print(f"  question {answers.current} ({'answered' if answered else 'unheard'}): "
                  f"{tally.spoken_s / 60:.2f} min of speech, own voice: {tally.counts()}",
                  file=log, flush=True)
    return tally


async def _ask(rec: Recorder, room: RoomOnCard, wav: Path) -> tuple[str | None, bool]:
    """Say the question; once its answer and all after it is over, the turn its wake word
    started (None: not heard) and whether that turn was answered."""
    started = time.time()
    await asyncio.to_thread(room.play, wav)
    turn = None
    with contextlib.suppress(AssertionError):
        turn = (await rec.until(WakeWordHeard, lambda w: w.ts >= started, QUESTION_TIMEOUT)).turn
        await rec.until(Transcript, lambda t: t.turn == turn, QUESTION_TIMEOUT)
        await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking, TURN_TIMEOUT)
    await _settle(rec)
    return turn, any(isinstance(m, Speaking) and m.turn == turn for m in rec.seen)


async def _settle(rec: Recorder) -> None:
    """Until the assistant is quiet: nothing plays (an answer to a turn of its own voice
    included), the mic has closed after the last thing that began, and for :data:`QUIET`
    nothing new began. At most :data:`SETTLE_ROUNDS` times: then the next question."""
    for _ in range(SETTLE_ROUNDS):
        playing = [m for m in rec.seen if isinstance(m, Speaking)]
        if playing and playing[-1].speaking:
            await _silent(rec, playing[-1].ts)
            continue
        latest = max((m.ts for m in rec.seen if isinstance(m, BEGINNINGS)), default=None)
        if latest is not None:
            await _closed(rec, latest)
        await rec.drain(QUIET)
        if not any(isinstance(m, BEGINNINGS) and m.ts > (latest or 0.0) for m in rec.seen):
            return


async def _silent(rec: Recorder, since: float) -> None:
    await rec.until(Speaking, lambda s: not s.speaking and s.ts >= since, TURN_TIMEOUT)


async def _closed(rec: Recorder, after: float) -> None:
    with contextlib.suppress(AssertionError):  # a turn with no answer may not close
        await rec.until(ListenClosed, lambda m: m.ts > after, QUESTION_TIMEOUT)
