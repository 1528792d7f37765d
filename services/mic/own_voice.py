"""Whether the assistant is saying its own wake word.

With echo cancellation off the wake word detector still hears while the assistant
speaks, so that the user's word interrupts it; but an answer that says the word
("You can wake me by saying Okay Nabu.") would then interrupt itself through the
speakers. The mic reads what the assistant is about to say (every ``tts.say``
piece, by turn) and, while a turn that says the word plays, takes a detection for
its echo. The cost: during such an answer the user's word does not interrupt it.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict

log = logging.getLogger(__name__)

KEPT_TURNS = 8
"""Turns whose text is remembered: the ones that may still be playing, and a few more."""


def squeezed(text: str) -> str:
    """``text`` lowercased, as letters and digits only, with "okay" and "o.k." as "ok": the
    forms that sound alike compare equal ("Okay, Nabu!" and "OK nabu" both give "oknabu")."""
    return re.sub(r"[\W_]+", "", text.lower()).replace("okay", "ok")


def mentions(phrase: str, text: str) -> bool:
    """Whether ``text``, spoken, contains the wake ``phrase`` (or a close form of it)."""
    word = squeezed(phrase)
    return bool(word) and word in squeezed(text)


class OwnVoice:
    """What the assistant says, by turn, against the wake ``phrase``."""

    def __init__(self, phrase: str) -> None:
        self.phrase = phrase
        """Empty: nothing to compare (no wake word, or the canceller takes the voice out)."""
        self.texts: OrderedDict[str, str] = OrderedDict()
        self.since_started: set[str] = set()
        """Turns with pieces requested since the speaker started: they may be playing now,
        after the turn that started it."""

    def said(self, turn: str | None, text: str) -> None:
        """A piece the speaker will play (``tts.say``)."""
        if not self.phrase:
            return
        key = turn or ""
        self.texts[key] = self.texts.pop(key, "") + " " + text
        while len(self.texts) > KEPT_TURNS:
            self.texts.popitem(last=False)
        self.since_started.add(key)

    def on_speaking(self, speaking: bool) -> None:
        """The speaker started (``tts.speaking`` true) or stopped playing."""
        if speaking:
            self.since_started.clear()

    def says_word(self, speaking_turn: str | None) -> bool:
        """Whether a turn that may be playing now says the wake word; if so, says why a
        detection is ignored."""
        for turn in {speaking_turn or "", *self.since_started}:
            if mentions(self.phrase, self.texts.get(turn, "")):
                log.info("wake word heard while turn %s, which says %r, plays: its own "
                         "voice, not a barge-in", turn or "(none)", self.phrase)
                return True
        return False
