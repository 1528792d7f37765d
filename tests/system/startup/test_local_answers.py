"""The whole assistant with no language model configured at all (``llm = ""``), as a new user
has it: a spoken question is answered aloud from the local intents (in Italian:
``test_local_answers_italian.py``); a volume request moves the speaker's volume by one
step; a timer rings and is announced once, also when the speaker or the dialogue is
killed while it runs."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from bus.messages import (
    Reply,
    SpeakRequest,
    Spoken,
    TraceMark,
    VolumeRequest,
    VolumeState,
)
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.hearing import says_time, transcribe
from tests.helpers.words import words
from tests.system.e2e.world import voice_turn
from tests.system.startup.no_llm import running, without_llm

STEP = 0.1
"""The speaker's volume step."""
RING = "Your 2 seconds timer is done."


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    with running(without_llm()) as started:
        yield started


def intent_of(rec: Recorder, turn: str) -> str:
    marks = [m.detail for m in rec.of(TraceMark, turn) if m.stage == "intent"]
    return marks[0] if marks else "(no intent mark)"


def test_a_spoken_question_is_answered_aloud_with_the_time(assistant: Assistant) -> None:
    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            turn = await voice_turn(assistant, rec, "What time is it?")
            assert intent_of(rec, turn.turn) == "HassGetCurrentTime"
            assert turn.reply.error is None, turn.reply
            assert says_time(turn.reply.text, turn.asked, turn.answered), turn.reply.text
            # Played, and heard: Whisper tiny.en writes a short time oddly ("3.5.7pm", or
            # "659 am" for 6:59), but the hour comes through as a number of its own or as
            # the digits before a run's last two.
            _, answer = turn.question_and_answer()
            heard = transcribe(answer)
            hours = {t.hour % 12 or 12 for t in (turn.asked, turn.answered)}
            numbers = {int(n if len(n) <= 2 else n[:-2])
                       for n in re.findall(r"\d+", " ".join(words(heard)))}
            assert hours & numbers, (turn.reply.text, heard)

    asyncio.run(scenario())


def test_turn_up_the_volume_moves_it_one_step(assistant: Assistant) -> None:
    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            ask = VolumeRequest(action="get")
            rec.bus.publish(ask)
            before = await rec.until(VolumeState, lambda v: v.reply_to == ask.id, timeout=10)
            turn = await voice_turn(assistant, rec, "Turn up the volume.")
            assert intent_of(rec, turn.turn) == "HassSetVolumeRelative"
            after = await rec.until(VolumeState, lambda v: v.turn == turn.turn, timeout=10)
            assert after.volume == pytest.approx(before.volume + STEP), (before, after)

    asyncio.run(scenario())


def timer_rings_once_across_a_kill(assistant: Assistant, killed: str) -> None:
    """Set a 2 s timer by text, SIGKILL ``killed`` while it runs, start it again: the
    timer's announcement is played once, soon after the restarted process is ready."""

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            reply: Reply = await rec.ask("set a timer for 2 seconds")
            assert reply.text.startswith("Timer set"), reply
            assistant.kill(killed)
            assistant.start_service(killed)
            ready = assistant.wait_ready([killed], states=("ready", "degraded"))
            await asyncio.to_thread(asyncio.run, ready)
            # Well within the 30 s after which an announcement nobody played is sent again:
            # a speaker back from a crash gets it as soon as its heartbeat is.
            played = await rec.until(Spoken, lambda s: s.text == RING, timeout=20)
            left = await rec.ask("how much time is left")
            assert left.text == "There is no timer.", left  # rung: nothing more will ring
            after = rec.seen[rec.seen.index(played) + 1:]
            again = [m for m in after if isinstance(m, SpeakRequest) and m.kind == "announce"]
            assert again == [], again
            assert [m.text for m in rec.of(Spoken) if m.text == RING] == [RING]

    try:
        asyncio.run(scenario())
    except BaseException:
        print(assistant.logs(["dialogue", "tts"]))  # shown with the failure
        raise


def test_a_timer_rings_once_across_a_restart_of_the_speaker(assistant: Assistant) -> None:
    timer_rings_once_across_a_kill(assistant, "tts")


def test_a_timer_rings_once_across_a_restart_of_the_dialogue(assistant: Assistant) -> None:
    timer_rings_once_across_a_kill(assistant, "dialogue")
