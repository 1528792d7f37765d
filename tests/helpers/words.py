"""Compare transcripts as people would: case, punctuation and digit/number words aside."""

from __future__ import annotations

import re
from collections import Counter

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


def recall(expected: list[str], heard: list[str]) -> float:
    """The share of ``expected``'s words that ``heard`` has (each as often as expected).

    For Whisper hearing Kokoro: a word or two misheard ("server" as "so for") is
    the model's, not the assistant's; a sentence cut short or not played is not.
    """
    have = Counter(heard)
    found = sum(min(n, have[word]) for word, n in Counter(expected).items())
    return found / len(expected) if expected else 1.0
