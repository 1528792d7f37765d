"""How long a prepared answer waits for its final transcript: as long as the longest
utterance and its transcription may take, then it is let go. The dialogue's timers run on
a clock the test moves on (seconds of waiting, without waiting)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bus.endpoints import Endpoints
from bus.messages import SpeakRequest, Speculation
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, run

QUESTION = "What is the capital of Australia?"
IN_TIME = 4.0
"""Seconds past the longest utterance after which a final transcript still confirms the
guess: transcribing that much speech on a CPU takes seconds."""
TOO_LATE = 6.0
"""Seconds past the longest utterance by which the prepared answer is let go (the TTS
holds its audio meanwhile)."""


@dataclass
class Timer:
    at: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """Timers that fire when the test moves the clock on."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[Timer] = []

    def later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(self.now + delay, callback)
        self.timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t.at <= self.now]
        self.timers = [t for t in self.timers if t.at > self.now]
        for timer in due:
            if not timer.cancelled:
                timer.callback()


async def prepared(h: Harness) -> str:
    """A guess whose answer is under way (its timer set); returns its turn."""
    turn = h.guess(QUESTION)
    await h.next(SpeakRequest, lambda s: s.turn == turn)
    return turn


def test_a_final_transcript_after_the_longest_utterance_still_confirms_the_guess(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Canberra."))
    clock = ManualClock()

    async def body(h: Harness) -> None:
        turn = await prepared(h)
        clock.advance(h.settings.longest_utterance + IN_TIME)
        h.say(QUESTION, turn=turn)
        verdict = await h.next(Speculation, lambda s: s.turn == turn)
        assert verdict.confirmed
        record = await h.reply(turn)
        assert record.reply.text == "Canberra."

    run(module_broker, llm, body, later=clock.later)
    assert len(llm.requests) == 1  # the prepared answer was the answer


def test_a_guess_whose_final_transcript_is_too_late_is_let_go_and_asked_again(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Canberra."), c.text("Canberra, asked again."))
    clock = ManualClock()

    async def body(h: Harness) -> None:
        turn = await prepared(h)
        clock.advance(h.settings.longest_utterance + TOO_LATE)
        dropped = await h.next(Speculation, lambda s: s.turn == turn)
        assert not dropped.confirmed
        h.say(QUESTION, turn=turn)
        record = await h.reply(turn)
        assert record.reply.text == "Canberra, asked again."

    run(module_broker, llm, body, later=clock.later)
    assert len(llm.requests) == 2
