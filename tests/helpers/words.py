"""Compare transcripts as people would: case, punctuation and digit/number words aside."""

from __future__ import annotations

import re

_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
NUMBER_WORDS = {word: str(value) for value, word in enumerate(_NUMBERS)}
NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"})


def words(text: str) -> list[str]:
    """``"Set a timer for ten minutes."`` → ``["set", "a", "timer", "for", "10", "minutes"]``."""
    tokens = re.sub(r"[^\w\s']", " ", text.lower()).replace("'", "").split()
    return [NUMBER_WORDS.get(token, token) for token in tokens]
