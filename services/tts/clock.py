"""Clock times as people say them, before a voice reads the text.

espeak-ng, which turns English and Italian text into phonemes for Kokoro (and
speaks it in ``services.tts --engine espeak``), reads a time group by group with its
zeros: Home Assistant's Italian answer "Sono le 08:49" came out "sono le zero
otto quarantanove", and "9:05 AM" "nine zero five AM". Written as words a
speaker of the language would use ("le 8 e 49", "9 oh 5 AM"), espeak-ng's own
number reading does the rest. Other languages are left as they are: Japanese
has its own reader, and a time in another espeak-ng language is read as that
voice reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TIME = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])(\s*[AaPp]\.?[Mm]\b\.?)?")
"""``H:MM`` or ``HH:MM`` on a 24-hour clock, not inside a longer run of digits and colons
(``12:30:05``, ``1:2:3``), and the ``AM``/``PM`` after it."""


def _english(hour: int, minute: int, half: str) -> str:
    if minute == 0:
        return f"{hour}{half}" if half else f"{hour} o'clock"
    return f"{hour} oh {minute}{half}" if minute < 10 else f"{hour} {minute}{half}"


def _italian(hour: int, minute: int, half: str) -> str:
    return f"{hour}{half}" if minute == 0 else f"{hour} e {minute}{half}"


SAYERS: dict[str, Callable[[int, int, str], str]] = {"en": _english, "it": _italian}


def spoken_times(text: str, lang: str) -> str:
    """``text`` with each clock time in words for ``lang`` (``en``, ``en-us``, ``it``...)."""
    say = SAYERS.get(lang.split("-")[0].lower())
    if say is None:
        return text
    return TIME.sub(lambda m: say(int(m[1]), int(m[2]), m[3] or ""), text)
