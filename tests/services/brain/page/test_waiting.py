"""What waits for a yes, as the page follows it: held by the Reply that asks, gone when the
session's next turn takes it or it lapses (the events the dialogue acts on), and on time."""

from __future__ import annotations

from bus.messages import BargeIn, HistoryCleared, ListenClosed, Reply, TraceMark
from services.base.names import LOCAL_SESSION
from services.brain.page.waiting import EXPIRES, MARGIN, PAGE_SESSION, Waiting
from services.dialogue import confirmation

ASKED_AT = 1000.0


def asked(session: str = LOCAL_SESSION, turn: str = "t1") -> Reply:
    return Reply(reply_to=turn, session=session, text="Send it?", confirmation="Send it?",
                 turn=turn, ts=ASKED_AT)


def holding(*replies: Reply, now: float = ASKED_AT) -> tuple[Waiting, list[float]]:
    clock = [now]
    waiting = Waiting(clock=lambda: clock[0])
    for reply in replies:
        assert waiting.saw(reply, lambda turn: None)
    return waiting, clock


def test_the_page_gives_up_before_the_dialogue_does() -> None:
    assert EXPIRES == confirmation.EXPIRES  # a service may not import the other's: a copy
    waiting, clock = holding(asked())
    clock[0] = ASKED_AT + EXPIRES - MARGIN - 0.01
    assert not waiting.expire() and waiting.views()
    clock[0] = ASKED_AT + EXPIRES - MARGIN
    assert waiting.expire() and waiting.views() == []
    assert waiting.take(LOCAL_SESSION, "t1") is None  # too late to answer it


def test_only_the_turn_that_asked_is_answered_and_only_once() -> None:
    waiting, _ = holding(asked(turn="t1"), asked(turn="t2"))  # the second asked again
    assert waiting.take(LOCAL_SESSION, "t1") is None
    taken = waiting.take(LOCAL_SESSION, "t2")
    assert taken is not None and taken.text == "Send it?"
    assert waiting.take(LOCAL_SESSION, "t2") is None


def test_the_views_say_who_answers() -> None:
    waiting, _ = holding(asked(), asked(PAGE_SESSION, "t2"), asked("brain:app", "t3"))
    assert [(v["session"], v["answered_by"]) for v in waiting.views()] == [
        (LOCAL_SESSION, "voice"), (PAGE_SESSION, "page"), ("brain:app", "")]


def test_what_takes_or_drops_a_question() -> None:
    sessions = {"t9": LOCAL_SESSION, "t8": PAGE_SESSION}
    both, page_only, voice_only = [LOCAL_SESSION, PAGE_SESSION], [PAGE_SESSION], [LOCAL_SESSION]
    cases = [
        # (message, the sessions whose question still waits after it)
        (Reply(reply_to="t9", session=LOCAL_SESSION, text="Done.", turn="t9"), page_only),
        (TraceMark(stage="confirm.answer", detail="yes", turn="t9"), page_only),
        (TraceMark(stage="confirm.answer", detail="yes", turn="t8"), voice_only),
        (TraceMark(stage="confirm.answer", detail="yes", turn="t7"), both),  # not on the board
        (TraceMark(stage="confirm.ask", turn="t9"), both),
        (ListenClosed(reason="timeout", follow_up=True), page_only),
        (ListenClosed(reason="timeout", follow_up=False), both),  # not opened for the answer
        (ListenClosed(reason="ended", follow_up=True), both),
        (BargeIn(reason="wake", interrupted="t1", heard=0.0, turn="t5"), page_only),
        (BargeIn(reason="wake", interrupted="t0", heard=0.0, turn="t5"), both),  # not its turn
        (BargeIn(reason="speech", interrupted="t1", heard=0.0, turn="t5"), both),
        (HistoryCleared(session=LOCAL_SESSION), page_only),
        (HistoryCleared(session="brain:app"), both),
    ]
    for msg, left in cases:
        waiting, _ = holding(asked(), asked(PAGE_SESSION, "t2"))
        assert waiting.saw(msg, sessions.get) is (left != both), msg
        assert [v["session"] for v in waiting.views()] == left, msg
