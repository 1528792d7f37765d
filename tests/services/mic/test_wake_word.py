"""The wake word on the virtual sound card: speech without it is not heard, the word opens the
mic for one question (also said in the same breath), an answer keeps it open for a follow-up
without the word, and the mic says when it closes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bus.client import Bus
from bus.messages import ListenClosed, Utterance, WakeWordHeard
from tests.helpers.busrun import with_buses
from tests.helpers.hearing import loud_span
from tests.helpers.service_stack import Stack, wait_state
from tests.helpers.soundcard import SoundCard
from tests.helpers.speech import padded
from tests.services.mic.test_push_to_talk import (
    FOLLOW_UP,
    Session,
    assert_short,
    samples,
)

WAKE = (f'[listen]\nmode = "wake"\ntimeout = 3.0\nfollow_up = {FOLLOW_UP}\n'
        'reply_timeout = 20.0\n[wake]\nearcon = true\n')
WORD = "Okay Nabu."
SAME_BREATH = "Okay Nabu, set a timer for ten minutes."


@pytest.fixture(scope="module")
def stack(card: SoundCard) -> Iterator[Stack]:
    stack = Stack(WAKE, top='card = "pulse"\n')
    try:
        stack.start("services.mic", env=card.env())

        async def ready(bus: Bus) -> None:
            await wait_state(bus, "mic", "ready")

        with_buses(stack.endpoints, ["test"], ready)
        yield stack
    finally:
        stack.close()


class WakeSession(Session):
    def __init__(self, bus: Bus, card: SoundCard, stack: Stack) -> None:
        super().__init__(bus, card, stack)
        self.word, _ = padded(WORD, stack.root)
        self.same_breath, _ = padded(SAME_BREATH, stack.root)
        self.events: list[WakeWordHeard | ListenClosed] = []

    async def heard(self) -> Utterance:
        """The next final utterance (the short question); wake and close events on the way
        are kept in ``events``."""
        while True:
            msg = await self.bus.recv(timeout=30)
            assert msg is not None, "nothing was heard"
            if isinstance(msg, WakeWordHeard | ListenClosed):
                self.events.append(msg)
            elif isinstance(msg, Utterance) and not msg.partial:
                return msg

    async def closed(self) -> ListenClosed:
        while True:
            msg = await self.bus.recv(timeout=30)
            assert msg is not None, "the mic never said it closed"
            assert not (isinstance(msg, Utterance) and not msg.partial), "heard without the word"
            if isinstance(msg, ListenClosed):
                return msg


def converse(card: SoundCard, stack: Stack, script) -> None:  # type: ignore[no-untyped-def]
    async def body(bus: Bus) -> None:
        bus.subscribe(Utterance.TOPIC, WakeWordHeard.TOPIC, ListenClosed.TOPIC)
        await bus.wait_path(bus)
        await script(WakeSession(bus, card, stack))

    with_buses(stack.endpoints, ["test"], body)


def test_only_speech_after_the_word_is_heard(card: SoundCard, stack: Stack) -> None:
    async def script(s: WakeSession) -> None:
        await s.say(s.question)  # no word: not heard (heard() would return it below)
        await s.say(s.word)
        await s.say(s.short)
        first = await s.heard()
        assert_short(first)
        woke = [e for e in s.events if isinstance(e, WakeWordHeard)]
        assert [e.turn for e in woke] == [first.turn]  # the word started this very turn
        assert woke[0].word == "Okay Nabu"
        s.answer(first.turn, "")  # an empty answer ends the conversation
        assert (await s.closed()).reason == "ended"
        await s.say(s.same_breath)
        second = await s.heard()
        # The word is not part of the question: its sound is about as long as the rest alone
        # (the word adds 0.8 s), and Whisper hears the rest without the word.
        heard = assert_short(second)
        assert not {"okay", "ok", "nabu"} & set(heard), heard
        assert loud_span(samples(second)) < s.short_length + 0.4, loud_span(samples(second))
        s.answer(second.turn, "")
        await s.closed()

    converse(card, stack, script)


def test_a_follow_up_needs_no_word_until_the_window_closes(card: SoundCard, stack: Stack) -> None:
    async def script(s: WakeSession) -> None:
        await s.say(s.word)
        await s.say(s.short)
        turn = (await s.heard()).turn
        s.answer(turn, "It is sunny in Rome.")
        await s.say(s.short)  # a follow-up: no word needed
        follow_up = await s.heard()
        assert follow_up.turn != turn
        assert not any(isinstance(e, WakeWordHeard) and e.turn == follow_up.turn
                       for e in s.events)
        s.answer(follow_up.turn, "Done.")
        closed = await s.closed()  # nobody spoke within the follow-up window
        assert (closed.reason, closed.follow_up) == ("timeout", True)
        await s.say(s.question)  # after the window: not heard without the word
        await s.say(s.word)
        await s.say(s.short)
        last = await s.heard()
        assert_short(last, "the question was heard")
        s.answer(last.turn, "")
        await s.closed()

    converse(card, stack, script)
