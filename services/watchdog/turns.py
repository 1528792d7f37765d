"""Which process holds each voice turn, and when a turn is lost.

Pure bookkeeping driven by bus messages and heartbeats (through
:class:`~bus.liveness.Liveness`) with the time passed in, so tests can run it
without clocks. Messages are read by the stage they mark (:mod:`bus.turns`,
the names of ``docs/bus.md``, "Turn stages"). A voice turn moves through four
phases; in each it depends on the processes that must live for it to end with
something the user hears:

=============  ===========================================  ==========================
phase          begins at the stage                          depends on
=============  ===========================================  ==========================
listening      ``speech_started``                           the mic that heard it
transcribing   ``window_closed``                            stt
answering      ``transcript``                               dialogue (and tts once a
                                                            piece was spoken)
speaking       the final ``say``                            tts
=============  ===========================================  ==========================

and always on the broker. It ends at ``turn.dropped``, when its final piece
was silent, or when the speaker reports it went ``quiet`` (or has ``spoken``
the last piece) after the final piece. It is *lost* when a process it depends
on restarts, stops or misses three heartbeats, when the broker restarts before
the turn reached the speaker, or when no message of the turn comes for
``stall`` seconds.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from bus.liveness import MISSED_PERIODS, Liveness
from bus.message import Message
from bus.messages import SpeakRequest, Spoken, Transcript
from bus.turns import (
    PLAYING,
    QUIET,
    SPEECH_STARTED,
    SPOKEN,
    TRANSCRIPT,
    TURN_DROPPED,
    WINDOW_CLOSED,
    stage_of,
)
from services.base.names import BROKER, DIALOGUE, SPEAKER, STT, WATCHDOG

LISTENING, TRANSCRIBING, ANSWERING, SPEAKING = "listening", "transcribing", "answering", "speaking"
PHASES = (LISTENING, TRANSCRIBING, ANSWERING, SPEAKING)
BEGINS = {WINDOW_CLOSED: (TRANSCRIBING, STT), TRANSCRIPT: (ANSWERING, DIALOGUE)}
"""The phase a stage begins (unless the turn is further on), and the process it waits on.
Listening begins with the turn; speaking at the final piece with words (:meth:`_piece`)."""
KEEP = 256
"""Turns followed at once; the oldest is forgotten beyond (a bound, not a normal case)."""
RECONNECT = 1.0
"""Seconds every process may take to reach a restarted broker again (its reconnect interval)."""


@dataclass
class Lost:
    """Why a turn was lost, and where its apology stands."""

    stage: str
    """The process whose loss lost the turn (``broker``...), or ``stall``."""
    why: str
    at: float
    needs_new: int | None = None
    """A pid of the speaker that must be replaced before the apology can be spoken."""
    said: int = 0
    """Times the apology was published (it is repeated until the speaker confirms it)."""
    next_say: float = 0.0
    seq: int = 0


@dataclass
class VoiceTurn:
    turn: str
    mic: str
    lang: str
    phase: str
    last: float
    """When the latest message of the turn arrived."""
    pids: dict[str, int | None] = field(default_factory=dict)
    """The processes the turn depends on now, with the pid each had (None: not yet seen)."""
    seq: int = -1
    """Highest ``seq`` of a piece seen."""
    audible: int | None = None
    """``seq`` of the latest piece with words."""
    heard: bool = False
    """The speaker has shown it has the turn (it started playing it, or played a piece)."""
    lost: Lost | None = None


class TurnBook:
    """Every voice turn in progress; :meth:`feed` messages, :meth:`check` for losses."""

    def __init__(
        self, liveness: Liveness, stall: float, heartbeat: float, lang: str, started: float
    ) -> None:
        self.liveness = liveness
        self.started = started
        """When following began: a process not seen since then may just not have beaten yet."""
        self.stall = stall
        self.heartbeat = heartbeat
        self.lang = lang
        self.turns: OrderedDict[str, VoiceTurn] = OrderedDict()
        self.broker_back = -float("inf")
        """When the broker's heartbeats resumed after a silence (or first came)."""

    # -- messages ----------------------------------------------------------------

    def feed(self, msg: Message, now: float) -> None:
        stage = stage_of(msg)
        if stage == SPEECH_STARTED and msg.turn:
            self._start(msg, now)
            return
        turn = self.turns.get(msg.turn or "")
        if turn is None:
            if stage == QUIET:
                self._quiet()
            return
        turn.last = now
        if stage in (PLAYING, SPOKEN):
            turn.heard = True
        begins = BEGINS.get(stage or "")
        if turn.lost is not None:
            self._acknowledge(turn, msg, stage)
        elif stage == TURN_DROPPED:
            del self.turns[turn.turn]
        elif begins and PHASES.index(begins[0]) > PHASES.index(turn.phase):
            if isinstance(msg, Transcript):
                turn.lang = msg.lang or turn.lang
            phase, holder = begins
            self._enter(turn, phase, [holder])
        elif isinstance(msg, SpeakRequest):
            self._piece(turn, msg)
        elif isinstance(msg, Spoken) and turn.phase == SPEAKING and msg.seq == turn.audible:
            del self.turns[turn.turn]
        elif stage == QUIET:
            self._quiet()

    def _start(self, msg: Message, now: float) -> None:
        for other in list(self.turns.values()):  # a mic hears one turn at a time
            if other.mic == msg.src and other.phase == LISTENING and other.lost is None:
                del self.turns[other.turn]
        turn = VoiceTurn(msg.turn or "", msg.src, self.lang, LISTENING, now)
        turn.pids[BROKER] = self.liveness.working_pid(BROKER)
        self._enter(turn, LISTENING, [msg.src])
        self.turns[turn.turn] = turn
        while len(self.turns) > KEEP:
            self.turns.popitem(last=False)

    def _enter(self, turn: VoiceTurn, phase: str, holders: list[str]) -> None:
        turn.phase = phase
        broker = turn.pids.get(BROKER)
        turn.pids = {BROKER: broker}
        for name in holders:
            turn.pids[name] = self.liveness.working_pid(name)

    def _piece(self, turn: VoiceTurn, say: SpeakRequest) -> None:
        turn.seq = max(turn.seq, say.seq)
        turn.lang = say.lang or turn.lang
        if say.text.strip():
            turn.audible = say.seq
            if SPEAKER not in turn.pids and (pid := self.liveness.working_pid(SPEAKER)):
                turn.pids[SPEAKER] = pid  # only a speaker that runs now can be lost
        if not say.final:
            return
        if turn.audible is None:
            del self.turns[turn.turn]  # nothing to play, nothing to wait for
            return
        speaker = turn.pids.get(SPEAKER)
        self._enter(turn, SPEAKING, [])
        # None when no speaker was seen working with the turn's words: not a reason to forget
        # it. Right after a broker outage the pieces queued meanwhile can come before anyone's
        # heartbeat does; the turn is then judged once the path is settled (a broker restart
        # loses it, a speaker that never comes too).
        turn.pids[SPEAKER] = speaker

    def _quiet(self) -> None:
        """The speaker went quiet: every turn whose final piece it had is over."""
        for turn in list(self.turns.values()):
            if turn.phase == SPEAKING and turn.lost is None:
                del self.turns[turn.turn]

    def _acknowledge(self, turn: VoiceTurn, msg: Message, stage: str | None) -> None:
        """A lost turn is over once the speaker plays it after the apology went out (the
        apology is queued behind what it plays), or once a working speaker got a final piece
        from another stage first (the speaker then ignores the apology)."""
        lost = turn.lost
        assert lost is not None
        playing = stage in (PLAYING, SPOKEN)
        speaker = self.liveness.working_pid(SPEAKER)
        ended = (
            isinstance(msg, SpeakRequest)
            and msg.final
            and msg.src != WATCHDOG  # our own apologies come back to us
            and speaker is not None
            and speaker != lost.needs_new
        )
        if (playing and lost.said > 0) or ended:
            del self.turns[turn.turn]

    def saw_broker(self, silent_before: float, now: float) -> None:
        """A broker heartbeat after ``silent_before`` seconds of silence."""
        if silent_before > MISSED_PERIODS * self.heartbeat:
            self.broker_back = now

    # -- losses ------------------------------------------------------------------

    def check(self, now: float) -> list[VoiceTurn]:
        """Turns lost since the last check (each returned once)."""
        newly = []
        for turn in self.turns.values():
            if turn.lost is not None:
                continue
            reason = self._why_lost(turn, now)
            if reason is not None:
                stage, why = reason
                turn.lost = Lost(stage, why, now, seq=turn.seq + 1)
                if stage == SPEAKER:
                    turn.lost.needs_new = turn.pids.get(SPEAKER)
                newly.append(turn)
        return newly

    def _why_lost(self, turn: VoiceTurn, now: float) -> tuple[str, str] | None:
        broker = turn.pids.get(BROKER)
        current = self.liveness.last(BROKER)
        if broker is not None and current is not None and current.pid != broker:
            # What was in flight may have reached some subscribers and not others; a turn
            # survives only if the speaker had all of it and has shown it plays it.
            if turn.phase != SPEAKING or not turn.heard:
                return BROKER, f"the broker restarted while {turn.phase}"
            turn.pids[BROKER] = current.pid
        if not self._settled(now):
            return None  # the path itself is down or just back: silence proves nothing
        for name, pid in list(turn.pids.items()):
            if name == BROKER:
                if pid is None:
                    turn.pids[BROKER] = self.liveness.working_pid(BROKER)
                continue
            if pid is None:
                pid = turn.pids[name] = self.liveness.working_pid(name)
                silent = min(self.liveness.silent_for(name), now - self.started)
                if pid is None and silent > self._grace(name):
                    return name, f"the {name} service is not running ({turn.phase})"
                continue
            why = self.liveness.lost(name, pid)
            if why is not None:
                return name, f"the {name} service {why} while {turn.phase}"
        if now - turn.last > self.stall:
            return "stall", f"no message of the turn for {now - turn.last:.0f} s while {turn.phase}"
        return None

    def _settled(self, now: float) -> bool:
        """The broker beats, and has beaten long enough for every process to be back on it."""
        if not self.liveness.alive(BROKER):
            return self.liveness.last(BROKER) is None  # no broker heartbeat at all: judge anyway
        return now - self.broker_back > MISSED_PERIODS * self.heartbeat + RECONNECT

    def _grace(self, name: str) -> float:
        seen = self.liveness.last(name)
        return MISSED_PERIODS * (seen.interval if seen else self.heartbeat)
