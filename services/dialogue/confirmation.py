"""Actions that wait for the user's yes: the question, and what a session holds meanwhile.

A round of the model that calls a tool which modifies (``modifies = true``, or an MCP
tool without ``readOnlyHint``) runs none of its calls: the turn asks instead, and the
session holds the round (:class:`Asked`) until its next turn answers. Only that turn,
the user's own words, can say yes: a "yes" in the model's text or a tool's result is
never read. An action expires (:data:`EXPIRES`), belongs to its session alone, and a
session holds at most one (a new question cancels the one before).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from bus.messages import ToolSpec
from services.base.phrases import language
from services.dialogue.toolcalls import ToolCallRequest
from settings.toolrules import PLACEHOLDER

log = logging.getLogger(__name__)

EXPIRES = 60.0
"""Seconds an action waits for its yes; then it is cancelled."""
MAX_VALUE = 80
"""Characters of one argument read out in a question."""

PHRASES: dict[str, dict[str, str]] = {
    "ask": {"en": "{what} ({args}). Shall I go ahead?", "it": "{what} ({args}). Procedo?",
            "ja": "{what}（{args}）。実行しますか？"},
    "ask_plain": {"en": "{what}. Shall I go ahead?", "it": "{what}. Procedo?",
                  "ja": "{what}。実行しますか？"},
    "again": {"en": "Sorry, was that a yes or a no?", "it": "Scusa, era un sì o un no?",
              "ja": "すみません、はいですか、いいえですか？"},
    # Not "Okay, I won't.": four of the five shipped voices saying it woke microWakeWord.
    "declined": {"en": "Got it, nothing done.", "it": "Va bene, non lo faccio.",
                 "ja": "わかりました、やめておきます。"},
    "gave_up": {"en": "I didn't catch a yes or a no, so I cancelled it.",
                "it": "Non ho capito sì o no, quindi ho annullato.",
                "ja": "はいかいいえか聞き取れなかったので、取り消しました。"},
    "dropped": {"en": "I cancelled the earlier request.",
                "it": "Ho annullato la richiesta di prima.",
                "ja": "先ほどの操作は取り消しました。"},
    "expired": {"en": "No answer, so I cancelled it.", "it": "Nessuna risposta, ho annullato.",
                "ja": "お返事がなかったので、取り消しました。"},
}


def said(key: str, lang: str, **values: str) -> str:
    return PHRASES[key][language(lang)].format(**values)


@dataclass
class Asked:
    """A round of calls held until the user answers, with what the model had been told."""

    session: str
    turn: str
    """The turn that asked."""
    messages: list[dict[str, Any]]
    """The conversation up to the round (the round's own assistant message not yet in)."""
    content: str
    """What the model said before its calls."""
    calls: list[ToolCallRequest]
    round: int
    question: str
    lang: str
    tools: list[str]
    """The names of the tools that modify, for the log."""
    expires: float = 0.0
    """Set when the session holds it."""
    times: int = 1
    """How often it was asked (a mumble gets the question once more)."""


def question(calls: list[ToolCallRequest], specs: Mapping[str, ToolSpec], lang: str) -> str:
    """The question for the calls that modify: each tool's own ``confirm`` in ``lang``,
    else its description and arguments."""
    asked = [_one(call, specs[call.name], lang) for call in calls
             if call.name in specs and specs[call.name].modifies]
    return " ".join(asked)


def _one(call: ToolCallRequest, spec: ToolSpec, lang: str) -> str:
    try:
        arguments = call.parsed_arguments()
    except ValueError:
        arguments = {}
    values = {key: _spoken(value, lang) for key, value in arguments.items()}
    template = spec.confirm.get(lang) or spec.confirm.get(lang.split("-")[0])
    if template and all(name in values for name in PLACEHOLDER.findall(template)):
        return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
    what = spec.description.strip().rstrip(".。") or spec.name
    if not values:
        return said("ask_plain", lang, what=what)
    args = ", ".join(f"{key} {value}" for key, value in values.items())
    return said("ask", lang, what=what, args=args)


ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?$")
WEEKDAYS = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "it": ("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
}
MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
    "it": ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
           "settembre", "ottobre", "novembre", "dicembre"),
}


def _spoken(value: object, lang: str) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if ISO_DAY.match(text.strip()):  # the model's ISO dates, as a person says them
        text = _day(text.strip(), language(lang))
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE].rsplit(" ", 1)[0] + "…"


def _day(text: str, lang: str) -> str:
    try:
        moment = datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        return text
    day: date = moment.date()
    at = "" if len(text) <= 10 else f"{moment:%H:%M}"
    if lang == "ja":
        clock = f" {moment.hour}時" + (f"{moment.minute}分" if moment.minute else "")
        return f"{day.month}月{day.day}日" + (clock if at else "")
    weekday, month = WEEKDAYS[lang][day.weekday()], MONTHS[lang][day.month - 1]
    if lang == "it":
        return f"{weekday} {day.day} {month}" + (f" alle {at}" if at else "")
    return f"{weekday} {month} {day.day}" + (f" at {at}" if at else "")


class Confirmations:
    """The action each session holds; taken by the session's next turn."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._held: dict[str, Asked] = {}

    def hold(self, asked: Asked) -> None:
        asked.expires = self.clock() + EXPIRES
        self._held[asked.session] = asked
        log.info("session %s: %s waits for a yes (turn %s)", asked.session,
                 ", ".join(asked.tools), asked.turn)

    def waiting(self, session: str) -> bool:
        asked = self._held.get(session)
        return asked is not None and asked.expires > self.clock()

    def take(self, session: str) -> Asked | None:
        """The session's action, which its turn now answers; None if none or expired."""
        asked = self._held.pop(session, None)
        if asked is not None and asked.expires <= self.clock():
            log.info("session %s: %s expired unanswered", session, ", ".join(asked.tools))
            return None
        return asked

    def cancel(self, session: str, why: str, turn: str | None = None) -> Asked | None:
        """Drop the session's action (only the one ``turn`` asked, when given)."""
        asked = self._held.get(session)
        if asked is None or (turn is not None and asked.turn != turn):
            return None
        del self._held[session]
        log.info("session %s: %s cancelled (%s)", session, ", ".join(asked.tools), why)
        return asked if asked.expires > self.clock() else None
