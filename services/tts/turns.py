"""What the speaker remembers per turn: its override, whether its tone played, its end."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from services.tts.hold import Hold

KEEP = 64
"""Recent turns remembered (an ActionRequest may come long before its first SpeakRequest)."""


@dataclass
class TurnState:
    lang: str = "en"
    override: str | None = None
    """Said instead of the turn's answer, when a volume step changed nothing."""
    override_said: bool = False
    toned: bool = False
    open: bool = False
    """Audio was queued and the final piece has not arrived yet."""
    ended: bool = False
    """The final piece has arrived: later pieces (a stage that went on after the turn was
    declared lost) are not spoken. Dropped speculative pieces take their final one along."""
    hold: Hold | None = None
    """Where the turn's speculative pieces wait for the dialogue's verdict."""
    tone_pending: bool = False
    """The tone is due when the held pieces are released (unless speech is ready by then)."""
    traced: bool = False
    """A real turn (its SpeakRequest had a turn id): its first sounds are reported as TraceMarks."""
    sounded: bool = False
    first_kinds: set[str] = field(default_factory=set)
    """Kinds whose first spoken piece has started playing."""
    lines: list[Any] = field(default_factory=list)
    """Its lines to play, in order (``synthesis.Line``): what was heard of it, if cut off."""
    cut: bool = False
    """Cut off by a barge-in: its later pieces are not spoken."""


class Turns:
    def __init__(self) -> None:
        self._turns: OrderedDict[str, TurnState] = OrderedDict()

    def get(self, turn: str) -> TurnState:
        state = self._turns.get(turn)
        if state is None:
            state = self._turns[turn] = TurnState()
            while len(self._turns) > KEEP:
                self._turns.popitem(last=False)
        return state

    def playing_turns(self) -> list[str]:
        """Turns with audio to come: queued, held, or still expecting pieces."""
        return [turn for turn, state in self._turns.items()
                if state.open or (state.hold is not None and state.hold.state == "held")]

    def open_turns(self) -> list[str]:
        return [turn for turn, state in self._turns.items() if state.open]
