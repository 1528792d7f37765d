"""The watchdog's bookkeeping: which stage holds a voice turn, and when the turn is lost."""

from __future__ import annotations

from bus.liveness import Liveness
from bus.message import Message
from bus.messages import (
    Heartbeat,
    Speaking,
    SpeakRequest,
    SpeechEnded,
    SpeechStarted,
    Spoken,
    Transcript,
    TurnDropped,
)
from bus.turns import Timeline
from services.watchdog.turns import (
    ANSWERING,
    BEGINS,
    LISTENING,
    PHASES,
    SPEAKING,
    TurnBook,
)
from tests.bus.recorded_turns import confirmed_voice_turn, tool_voice_turn

BEAT = 0.5
PIDS = {"broker": 10, "mic": 11, "stt": 12, "dialogue": 13, "tts": 14}


class World:
    """A fake clock, heartbeats from every process, and the book under test."""

    def __init__(self, absent: tuple[str, ...] = ()) -> None:
        self.now = 100.0
        self.pids = {name: pid for name, pid in PIDS.items() if name not in absent}
        self.silent: set[str] = set()
        self.liveness = Liveness(lambda: self.now)
        self.book = TurnBook(self.liveness, stall=30.0, heartbeat=BEAT, lang="en", started=0.0)
        self.beat()

    def beat(self) -> None:
        for name, pid in self.pids.items():
            if name not in self.silent:
                beat = Heartbeat(service=name, pid=pid, state="ready", version="1", interval=BEAT)
                self.liveness.saw(beat)

    def run(self, seconds: float) -> list[str]:
        """Let time pass with heartbeats; the turns lost meanwhile."""
        lost = []
        end = self.now + seconds
        while self.now < end:
            self.now += BEAT / 2
            self.beat()
            lost += [t.turn for t in self.book.check(self.now)]
        return lost

    def send(self, msg: Message) -> None:
        self.book.feed(msg, self.now)


def speech(world: World, turn: str = "t1") -> None:
    world.send(SpeechStarted(turn=turn, src="mic"))


def transcribed(world: World, turn: str = "t1") -> None:
    speech(world, turn)
    world.send(SpeechEnded(speech_end=1.0, duration=1.0, turn=turn, src="mic"))
    world.send(Transcript(text="hello", lang="it", turn=turn, src="stt"))


def say(world: World, text: str, seq: int, final: bool = False, turn: str = "t1") -> None:
    world.send(SpeakRequest(text=text, seq=seq, final=final, lang="it", turn=turn, src="dialogue"))


def test_a_turn_that_goes_well_ends_when_the_speaker_is_quiet() -> None:
    world = World()
    transcribed(world)
    say(world, "Ciao.", 0)
    say(world, "", 1, final=True)
    assert world.book.turns["t1"].phase == SPEAKING
    assert world.run(5) == []
    world.send(Speaking(speaking=False, turn="t1", src="tts"))
    assert world.book.turns == {}


def test_the_last_piece_spoken_ends_it_too_and_a_silent_final_at_once() -> None:
    world = World()
    transcribed(world)
    say(world, "Ciao.", 0, final=True)
    world.send(Spoken(text="Ciao.", seq=0, turn="t1", src="tts"))
    assert world.book.turns == {}
    transcribed(world, "t2")
    say(world, "", 0, final=True, turn="t2")  # a control-only answer: nothing to play
    assert world.book.turns == {}


def test_a_mic_that_dies_while_listening_loses_the_turn_after_three_beats() -> None:
    world = World()
    speech(world)
    world.silent.add("mic")
    assert world.run(3 * BEAT - 0.3) == []
    assert world.run(0.6) == ["t1"]
    lost = world.book.turns["t1"].lost
    assert lost is not None and lost.stage == "mic" and "listening" in lost.why


def test_a_restart_is_a_loss_at_once_and_each_stage_is_blamed() -> None:
    for stage, steps in [("stt", 2), ("dialogue", 3), ("tts", 4)]:
        world = World()
        speech(world)
        world.send(SpeechEnded(speech_end=1.0, duration=1.0, turn="t1", src="mic"))
        if steps >= 3:
            world.send(Transcript(text="hello", lang="it", turn="t1", src="stt"))
        if steps >= 4:
            say(world, "Ciao.", 0, final=True)
        world.pids[stage] += 100
        world.beat()
        assert [t.turn for t in world.book.check(world.now)] == ["t1"], stage
        lost = world.book.turns["t1"].lost
        assert lost is not None and lost.stage == stage and "restarted" in lost.why
        assert lost.needs_new == (PIDS["tts"] if stage == "tts" else None)


def test_a_dropped_turn_is_not_lost_and_a_new_turn_supersedes_a_listening_one() -> None:
    world = World()
    speech(world)
    world.send(TurnDropped(reason="deaf", turn="t1", src="mic"))
    speech(world, "t2")
    speech(world, "t3")
    assert list(world.book.turns) == ["t3"]
    world.send(SpeechEnded(speech_end=1.0, duration=1.0, turn="t3", src="mic"))
    world.send(TurnDropped(reason="no-speech", turn="t3", src="stt"))
    world.silent.add("mic")
    assert world.run(5) == [] and world.book.turns == {}


def test_a_broker_restart_loses_turns_the_speaker_has_not_shown_it_plays() -> None:
    world = World()
    transcribed(world, "answering")
    transcribed(world, "speaking")
    say(world, "Ciao.", 0, final=True, turn="speaking")
    world.send(Speaking(speaking=True, turn="speaking", src="tts"))
    transcribed(world, "unheard")  # its final piece went out: did the speaker get it?
    say(world, "Ciao.", 0, final=True, turn="unheard")
    world.silent = set(PIDS)  # the broker is down: nobody's beats arrive
    assert world.run(3) == []
    world.pids["broker"] += 1
    world.silent = set()
    world.book.saw_broker(world.liveness.silent_for("broker"), world.now)
    lost = world.run(BEAT)
    assert lost == ["answering", "unheard"]
    assert world.book.turns["speaking"].lost is None
    assert world.book.turns["answering"].lost.stage == "broker"  # type: ignore[union-attr]


def test_silence_is_not_judged_until_everyone_is_back_on_a_restarted_broker() -> None:
    world = World()
    transcribed(world)
    world.silent = set(PIDS)
    world.run(3)
    world.silent = {"dialogue", "stt", "mic", "tts"}  # the broker is back, the rest not yet
    world.pids["broker"] += 1
    world.book.saw_broker(world.liveness.silent_for("broker"), world.now)
    world.book.turns.clear()
    transcribed(world, "t2")  # a turn right after the restart
    assert world.run(3 * BEAT + 0.5) == []


def test_a_stage_that_never_ran_loses_the_turn_and_so_does_a_stall() -> None:
    world = World(absent=("stt",))
    speech(world)
    world.send(SpeechEnded(speech_end=1.0, duration=1.0, turn="t1", src="mic"))
    assert world.run(BEAT) == ["t1"]
    assert "not running" in world.book.turns["t1"].lost.why  # type: ignore[union-attr]

    world = World()
    transcribed(world)
    assert world.book.turns["t1"].phase == ANSWERING
    assert world.run(29) == []
    assert world.run(2) == ["t1"]
    assert world.book.turns["t1"].lost.stage == "stall"  # type: ignore[union-attr]


def test_a_lost_turn_ends_when_the_speaker_plays_it_after_the_apology_went_out() -> None:
    world = World()
    transcribed(world)
    say(world, "Ciao.", 0)
    world.pids["dialogue"] += 1
    world.run(BEAT)
    lost = world.book.turns["t1"].lost
    assert lost is not None and lost.seq == 1
    world.send(Spoken(text="Ciao.", seq=0, turn="t1", src="tts"))
    assert "t1" in world.book.turns  # the apology is not out yet: this proves nothing
    lost.said = 1
    world.send(Spoken(text="Ciao.", seq=0, turn="t1", src="tts"))  # queued before the apology
    assert world.book.turns == {}

    world = World()
    transcribed(world)
    say(world, "Ciao.", 0)
    world.pids["tts"] += 1  # the speaker died; the dialogue goes on meanwhile
    world.silent.add("tts")
    world.run(2)
    say(world, "", 1, final=True)  # nobody heard it: the new speaker is not up yet
    assert "t1" in world.book.turns
    world.silent.clear()
    world.beat()
    say(world, "", 1, final=True)
    assert world.book.turns == {}


def test_an_apology_that_starts_playing_ends_a_turn_that_had_nothing_else_to_play() -> None:
    world = World()
    speech(world)
    world.pids["mic"] += 1
    world.run(BEAT)
    lost = world.book.turns["t1"].lost
    assert lost is not None
    world.send(Speaking(speaking=True, turn="t1", src="tts"))
    assert "t1" in world.book.turns  # not yet published: it cannot be this apology playing
    lost.said = 1
    world.send(Speaking(speaking=True, turn="t1", src="tts"))
    assert world.book.turns == {}


def test_a_final_piece_that_comes_back_before_the_heartbeats_does_not_forget_the_turn() -> None:
    # The broker dies while the model answers; the dialogue's PUB queues the answer and
    # delivers it as soon as it is back on the new broker, before anyone's heartbeat.
    world = World()
    transcribed(world)
    world.silent = set(PIDS)
    assert world.run(3) == []
    say(world, "Sunny.", 0, final=True)
    assert world.book.turns["t1"].phase == SPEAKING
    world.pids["broker"] += 1
    world.silent = set()
    world.book.saw_broker(world.liveness.silent_for("broker"), world.now)
    assert world.run(BEAT) == ["t1"]
    assert world.book.turns["t1"].lost.stage == "broker"  # type: ignore[union-attr]


def test_a_final_piece_with_no_speaker_running_loses_the_turn() -> None:
    world = World(absent=("tts",))
    transcribed(world)
    say(world, "Sunny.", 0, final=True)
    assert world.run(BEAT) == ["t1"]
    lost = world.book.turns["t1"].lost
    assert lost is not None and lost.stage == "tts" and "not running" in lost.why


def test_each_phase_begins_at_the_stage_the_shared_fold_reads() -> None:
    """The watchdog reads messages by the stages of bus/turns.py: fed a recorded turn, its
    phase after each message is the one the turn's timeline so far has reached."""
    for messages in (confirmed_voice_turn("t1"), tool_voice_turn("t1")[:-1]):
        world = World()
        speech(world)
        final = False
        for seen, msg in enumerate(messages, 1):
            world.send(msg)
            final = final or isinstance(msg, SpeakRequest) and msg.final
            turn = world.book.turns.get("t1")
            if turn is None:  # over: the speaker played the last piece with words
                assert "spoken" in Timeline.of("t1", messages[:seen]).times
                break
            reached = Timeline.of("t1", messages[:seen]).times
            phases = [BEGINS[stage][0] for stage in reached if stage in BEGINS]
            expected = max(phases, key=PHASES.index, default=LISTENING)
            if final:
                expected = SPEAKING  # from the final piece (these turns have words to play)
            assert turn.phase == expected, (msg.TOPIC, reached)
        assert "t1" not in world.book.turns or world.book.turns["t1"].phase == SPEAKING


def test_a_watchdog_just_started_gives_a_stage_three_beats_to_be_heard() -> None:
    # Started a moment ago, the watchdog has not heard the stt yet: the stt may be running
    # and beat soon, so it is blamed only once three of its beats could have come.
    world = World(absent=("stt",))
    world.book.started = world.now
    speech(world)
    world.send(SpeechEnded(speech_end=1.0, duration=1.0, turn="t1", src="mic"))
    assert world.run(3 * BEAT - 0.3) == []
    assert world.run(0.6) == ["t1"]
    lost = world.book.turns["t1"].lost
    assert lost is not None and lost.stage == "stt" and "not running" in lost.why
