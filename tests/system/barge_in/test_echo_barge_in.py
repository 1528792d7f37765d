"""The assistant's own voice, through a simulated room, with every real process of a spoken
turn (mic, STT, dialogue, speaker with Kokoro) and the scripted LLM, never interrupts it
nor wakes the word; with echo cancellation, the user's speech over it does.

The speaker plays into the card's sink; the room (``tests/helpers/room.py``)
delays that by 80 ms, low-passes it, attenuates it and adds noise into a
second sink, whose monitor is the mic; the user speaks into the room too. So
the mic hears the assistant's answer as from a speaker across a desk, and the
canceller, fed with the card's sink monitor, must find the delay (the room's 80 ms and its
own buffers) and take the voice out by itself, or at least know that it has not.
Without the canceller the wake word detector hears the assistant: an answer that says
the word itself must not interrupt it either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from bus.messages import (
    BargeIn,
    Interrupted,
    ListenClosed,
    Reply,
    Speaking,
    Spoken,
    Transcript,
    WakeWordHeard,
)
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.room import RoomOnCard
from tests.helpers.speech import padded
from tests.helpers.words import recall, words

CONFIG = ('[listen]\nmode = "wake"\ntimeout = 4.0\nfollow_up = 3.0\n'
          '[wake]\nearcon = false\n[audio]\nvolume = 0.5\n')
ASK = "Okay Nabu. Tell me about the history of Rome."
LONG = [
    "Rome was founded, as the legend says, in seven hundred and fifty three before Christ. ",
    "It grew from a small town on seven hills into the capital of a great empire. ",
    "Its republic lasted for almost five centuries, with consuls elected every year. ",
    "Then Augustus became the first emperor, and a long peace began. ",
    "The city had a million people, aqueducts, baths, theatres and roads to everywhere. ",
    "Its law and its language shaped Europe for the next two thousand years. ",
]

SAYS_THE_WORD = [
    "I am your desktop assistant. ",
    "You can wake me by saying Okay Nabu, and then asking your question. ",
    "If I talk for too long, say Okay Nabu again and I will stop. ",
    "After an answer I keep listening for a few seconds, so a follow-up needs no word. ",
    "Okay Nabu works in a quiet room and in a noisy one. ",
    "That is all there is to it, and it works in English, Italian and Japanese. ",
]

ECHO_CANCEL = "true"
DEFAULT = "auto"
"""``[audio] echo_cancel`` left as it is: on here (the mic hears the room, not the
speaker's monitor), and only the wake word interrupts (``[listen] barge_in``)."""
WEATHER = "What is the weather like in Rome tomorrow?"


def about_the_weather(question: str) -> bool:
    """By its word, or most of its words: Whisper may hear "whether" over what is left of
    the echo."""
    return "weather" in question.lower() or recall(words(WEATHER), words(question)) >= 0.6


def last_question(body: dict[str, Any]) -> str:
    return str([m["content"] for m in body["messages"] if m["role"] == "user"][-1])


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """By the question, not by order: a guess the dialogue drops makes a request too."""
    if about_the_weather(last_question(body)):
        return c.text("Sunny and warm.")
    if any(w in last_question(body).lower() for w in ("wake", "word")):
        return c.text(*SAYS_THE_WORD)
    return c.text(*LONG)


async def closed(rec: Recorder, silent: Speaking) -> None:
    """Until the mic closes after the follow-up window: the next test starts as a user
    would, in silence, with the wake word."""
    await rec.until(ListenClosed, lambda m: m.ts > silent.ts, timeout=30)


@pytest.fixture(scope="module", params=["false", ECHO_CANCEL, DEFAULT],
                ids=["no echo cancel", "echo cancel", "default"])
def room_assistant(request: pytest.FixtureRequest) -> Iterator[tuple[Assistant, RoomOnCard]]:
    """With echo cancellation the mic hears while the assistant speaks; without, only the
    wake word detector does: neither may take the assistant's voice for the user. By
    default the canceller cleans what the detector hears, and the mic hears no more."""
    config = CONFIG + ("" if request.param == DEFAULT else f"echo_cancel = {request.param}\n")
    with Assistant(sound=True, tools=(), services=["stt", "dialogue", "tts"],
                   config=config) as assistant:
        assert assistant.card is not None
        room = RoomOnCard(assistant.card, delay=0.08, gain=0.5, noise=0.002).start()
        assistant.llm.responder = answer
        try:
            assistant.start_service("mic")  # after the room: the mic records its sink
            asyncio.run(assistant.wait_ready(["mic"]))
            yield assistant, room
        finally:
            room.stop()


@pytest.mark.parametrize("room_assistant", ["false", ECHO_CANCEL],
                         ids=["no echo cancel", "echo cancel"], indirect=True)
def test_a_long_answer_alone_in_the_room_never_interrupts_itself(
    room_assistant: tuple[Assistant, RoomOnCard],
) -> None:
    assistant, room = room_assistant
    ask, _ = padded(ASK, assistant.root)

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            before = len(assistant.llm.requests)
            await asyncio.to_thread(room.play, ask)
            turn = (await rec.until(Transcript, timeout=60)).turn
            await rec.until(Reply, lambda r: r.reply_to == turn, timeout=60)
            silent = await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking,
                                     timeout=120)
            assert not rec.of(BargeIn), assistant.logs(["mic"])[-3000:]
            spoken = " ".join(s.text for s in rec.of(Spoken, turn))
            assert "two thousand years" in spoken  # the whole answer played
            assert len(rec.of(WakeWordHeard)) == 1  # the user's, not the assistant's
            asked = [last_question(r) for r in assistant.llm.requests[before:]]
            # None from its own voice: each is the user's question, as Whisper heard it
            # through the room ("the history of long" for "of Rome" too).
            question = words(ASK.split(". ", 1)[1])
            assert asked and all(recall(question, words(q)) >= 0.6 for q in asked), asked
            await closed(rec, silent)

    asyncio.run(scenario())


@pytest.mark.parametrize("room_assistant", ["false", DEFAULT], ids=["no echo cancel", "default"],
                         indirect=True)
def test_an_answer_that_says_the_wake_word_plays_to_the_end(
    room_assistant: tuple[Assistant, RoomOnCard],
) -> None:
    """The detector hears "Okay Nabu" in the assistant's voice, three times; the mic knows
    the turn says it: no barge-in, no new turn, every sentence played. By default this is
    also the long answer alone in the room: only the word may interrupt it there, so the
    test above, which waits 20 s for an answer that says no word, is not run again."""
    assistant, room = room_assistant
    ask, _ = padded("Okay Nabu. What is your wake word?", assistant.root)

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            await asyncio.to_thread(room.play, ask)
            turn = (await rec.until(Transcript, timeout=60)).turn
            silent = await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking,
                                     timeout=120)
            assert not rec.of(BargeIn)
            assert len(rec.of(WakeWordHeard)) == 1  # the user's, not the assistant's
            spoken = " ".join(s.text for s in rec.of(Spoken, turn))
            assert spoken.count("Okay Nabu") == 3 and "Japanese" in spoken, spoken
            await closed(rec, silent)

    try:
        asyncio.run(scenario())
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{assistant.logs(['mic'])}") from None


@pytest.mark.parametrize("room_assistant", [ECHO_CANCEL], ids=["echo cancel"], indirect=True)
@pytest.mark.parametrize(
    ("interruption", "asks"),
    [(WEATHER, True), ("Stop.", False)],
    ids=["a question", "a stop phrase"],
)
def test_speech_over_a_long_answer_stops_it(
    room_assistant: tuple[Assistant, RoomOnCard], interruption: str, asks: bool,
) -> None:
    """Plain speech, without the wake word, cuts the answer off; a question is answered as
    the next turn, a stop phrase only stops it (no answer). "Stop." is voiced only
    briefly over what is left of the echo: the mic's shorter onset while the assistant
    speaks hears it (tests/services/mic/test_echo_stop_word.py)."""
    assistant, room = room_assistant
    ask, _ = padded(ASK, assistant.root)
    said, _ = padded(interruption, assistant.root, before=0.1)

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            await asyncio.to_thread(room.play, ask)
            turn = (await rec.until(Transcript, timeout=60)).turn
            # Two sentences played: the canceller has had seconds of echo to adapt on.
            await rec.until(Spoken, lambda s: s.turn == turn and "empire" in s.text, timeout=90)
            before = len(assistant.llm.requests)
            await asyncio.to_thread(room.play, said)
            barge_in = await rec.until(BargeIn, timeout=30)
            assert (barge_in.reason, barge_in.interrupted) == ("speech", turn)
            cut = await rec.until(Interrupted, lambda m: m.reply_to == barge_in.id, timeout=10)
            assert cut.turn == turn and "empire" in cut.played
            silent = await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking,
                                     timeout=10)
            heard = await rec.until(Transcript, lambda t: t.turn == barge_in.turn, timeout=60)
            assert recall(words(interruption), words(heard.text)) >= 0.6, heard.text
            reply = await rec.until(Reply, lambda r: r.reply_to == heard.turn, timeout=60)
            assert not [s for s in rec.of(Spoken, turn) if "two thousand" in s.text]
            asked = [last_question(r) for r in assistant.llm.requests[before:]]
            if asks:
                assert reply.text == "Sunny and warm."
                assert asked and all(about_the_weather(q) for q in asked), asked
                silent = await rec.until(
                    Speaking, lambda s: s.turn == heard.turn and not s.speaking, timeout=60)
            else:
                assert reply.text == ""
                # A guess on a partial transcript ("スター" for "Stop") may be asked and
                # dropped; the stop phrase itself never is, and nothing is said.
                assert not [q for q in asked if "stop" in q.lower()], asked
                assert not rec.of(Spoken, heard.turn)
            await closed(rec, silent)

    try:
        asyncio.run(scenario())
    except AssertionError as exc:  # what the mic heard and judged says why
        raise AssertionError(f"{exc}\n{assistant.logs(['mic', 'stt', 'dialogue'])}") from None


@pytest.mark.parametrize("room_assistant", [DEFAULT], ids=["default"], indirect=True)
def test_by_default_the_word_over_the_answer_stops_it_and_plain_speech_does_not(
    room_assistant: tuple[Assistant, RoomOnCard],
) -> None:
    """Default settings in a room: the mic turns the canceller on by itself (the speaker's
    monitor records, and the mic is not that monitor), so the word said over the answer is
    heard in what the canceller leaves; speech without the word (a television, a second
    person) does not cut the answer off."""
    assistant, room = room_assistant
    assert "echo cancellation on: auto" in assistant.logs(["mic"])
    ask, _ = padded(ASK, assistant.root)
    plain, _ = padded("I wonder what is on television tonight.", assistant.root, before=0.1)
    word, _ = padded("Okay Nabu.", assistant.root, before=0.1)
    question, _ = padded(WEATHER, assistant.root, before=0.3)

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            await asyncio.to_thread(room.play, ask)
            turn = (await rec.until(Transcript, timeout=60)).turn
            await rec.until(Spoken, lambda s: s.turn == turn and "empire" in s.text, timeout=90)
            await asyncio.to_thread(room.play, plain)
            await asyncio.to_thread(room.play, word)
            barge_in = await rec.until(BargeIn, timeout=30)
            # The first barge-in is the word's: the plain sentence before it made none.
            assert (barge_in.reason, barge_in.interrupted) == ("wake", turn)
            cut = await rec.until(Interrupted, lambda m: m.reply_to == barge_in.id, timeout=10)
            assert cut.turn == turn and "empire" in cut.played
            await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking, timeout=10)
            await asyncio.to_thread(room.play, question)
            heard = await rec.until(Transcript, lambda t: t.turn == barge_in.turn, timeout=60)
            assert about_the_weather(heard.text), heard.text
            reply = await rec.until(Reply, lambda r: r.reply_to == heard.turn, timeout=60)
            assert reply.text == "Sunny and warm."
            assert not [t for t in rec.of(Transcript) if "television" in t.text.lower()]
            silent = await rec.until(
                Speaking, lambda s: s.turn == heard.turn and not s.speaking, timeout=60)
            await closed(rec, silent)

    try:
        asyncio.run(scenario())
    except AssertionError as exc:  # what the mic heard and judged says why
        raise AssertionError(f"{exc}\n{assistant.logs(['mic', 'stt', 'dialogue'])}") from None
