"""One reading of a turn (bus/turns.py): the stage each message marks and the timeline."""

from __future__ import annotations

import re

from bus.message import Message
from bus.messages import (
    Reply,
    SpeakRequest,
    Speculation,
    SpeculativeTranscript,
    TraceMark,
    Transcript,
)
from bus.turns import STAGES, TURN_MESSAGES, Timeline, stage_of
from tests.bus.recorded_turns import (
    CONFIRMED_STAGES,
    END,
    confirmed_voice_turn,
    text_turn,
    tool_voice_turn,
)
from tests.helpers.processes import ROOT


def test_a_voice_turn_answered_from_its_guess_has_every_stage_from_the_end_of_speech() -> None:
    timeline = Timeline.of("voice1", confirmed_voice_turn())
    assert timeline.stages == CONFIRMED_STAGES
    assert list(timeline.stages) == list(CONFIRMED_STAGES), "in the order they happened"
    assert timeline.text == "what time is it" and timeline.origin == END
    assert timeline.spoke and timeline.complete


def test_every_message_of_the_recorded_turns_is_one_a_follower_subscribes_to() -> None:
    # the brain's page subscribes to TURN_MESSAGES: a kind left out would lose its stage
    recorded = [*confirmed_voice_turn(), *tool_voice_turn(), *text_turn()]
    assert {type(msg) for msg in recorded} <= set(TURN_MESSAGES)


def test_a_voice_turn_with_a_tool_and_a_text_turn() -> None:
    voice = Timeline.of("voice2", tool_voice_turn())
    assert voice.stages == {"window_closed": 0.5, "transcript": 0.55, "llm.first_token": 0.6,
                            "say": 0.9, "playing": 1.1, "reply": 1.2, "quiet": 2.0}
    ((tool),) = voice.tools
    assert (tool.name, round(tool.start - END, 4), tool.duration, tool.ok) == (
        "now", 0.7, 0.05, True)

    text = Timeline.of("text1", text_turn())
    assert text.stages == {"ask": 0.0, "reply": 0.4}, "a text turn counts from the question"
    assert (text.text, text.error, text.complete) == ("hi", "llm-error", True)


def test_a_dropped_guess_leaves_its_answer_out_and_counts_from_the_final_end_of_speech() -> None:
    t0, turn = 3000.0, "spec2"
    timeline = Timeline.of(turn, [
        SpeculativeTranscript(turn=turn, ts=t0 + 0.2, text="what is", lang="en", speech_end=t0),
        SpeakRequest(turn=turn, ts=t0 + 0.25, text="What?", seq=0, final=True, speculative=True),
        Speculation(turn=turn, ts=t0 + 0.9, confirmed=False),
        Transcript(turn=turn, ts=t0 + 1.0, text="what is new", lang="en", speech_end=t0 + 0.5),
        SpeakRequest(turn=turn, ts=t0 + 1.1, text="Nothing.", seq=0, final=True),
        Reply(turn=turn, ts=t0 + 1.1, reply_to=turn, session="local", text="Nothing."),
    ])
    assert timeline.stages == {"guess": -0.3, "speculation.dropped": 0.4, "transcript": 0.5,
                               "say": 0.6, "reply": 0.6}
    assert timeline.spoke and not timeline.complete, "its words are still to be played"


def test_a_guess_never_confirmed_shows_no_answer_and_a_lost_turn_is_never_complete() -> None:
    messages = confirmed_voice_turn()
    unconfirmed = [m for m in messages if not isinstance(m, Speculation | Reply)]
    timeline = Timeline.of("voice1", unconfirmed[:8])  # up to the transcript, then silence
    assert "say" not in timeline.stages and timeline.stages["guess"] == 0.42
    assert not timeline.complete and not timeline.spoke


def test_the_order_messages_come_in_and_duplicates_change_nothing() -> None:
    messages = confirmed_voice_turn()
    for shuffled in (messages[::-1], messages + messages, messages[1::2] + messages[::2]):
        # A guess is only an answer once confirmed: the confirmation comes after its pieces.
        confirm = next(m for m in shuffled if isinstance(m, Speculation))
        ordered = [m for m in shuffled if m is not confirm] + [confirm]
        assert Timeline.of("voice1", ordered).stages == CONFIRMED_STAGES


def test_the_latest_guess_and_the_earliest_of_the_rest_count() -> None:
    turn = "g"
    timeline = Timeline.of(turn, [
        TraceMark(turn=turn, ts=END + 0.9, stage="llm.first_token"),
        Transcript(turn=turn, ts=END + 1.0, text="b", lang="en", speech_end=END),
        SpeculativeTranscript(turn=turn, ts=END + 0.4, text="a b", lang="en", speech_end=END),
        SpeculativeTranscript(turn=turn, ts=END + 0.2, text="a", lang="en", speech_end=END),
        TraceMark(turn=turn, ts=END + 0.8, stage="llm.first_token"),
    ])
    assert timeline.stages == {"guess": 0.4, "llm.first_token": 0.8, "transcript": 1.0}


def test_a_trace_mark_cannot_stand_in_for_a_message_stage() -> None:
    assert stage_of(TraceMark(stage="llm.request")) == "llm.request"
    assert stage_of(TraceMark(stage="transcript")) is None
    assert stage_of(Message()) is None


def test_docs_list_every_stage_in_order_with_the_message_that_marks_it() -> None:
    doc = (ROOT / "docs" / "bus.md").read_text()
    section = doc[doc.index("## Turn stages"):]
    section = section[:section.index("\n## ", 1)]
    listed = re.findall(r"^\| `([a-z_.]+)` \|", section, flags=re.M)
    assert [s for s in listed if s in STAGES] == list(STAGES)
    for stage in CONFIRMED_STAGES:
        assert f"`{stage}`" in section, stage
