"""How a forced decode of one window is judged: its likelihood, its script, its loops."""

from __future__ import annotations

import re
from typing import Any

REPEAT = 3
"""Words in a row that, seen twice in one short utterance, mean Whisper is looping."""

OWN_SCRIPT = {
    "ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"),  # kana, kanji
    "zh": re.compile(r"[\u4e00-\u9fff]"),
    "ko": re.compile(r"[\uac00-\ud7af\u1100-\u11ff]"),  # hangul
}
"""Languages with a script of their own: a transcript of theirs has some of it."""


def in_own_script(text: str, language: str) -> bool:
    script = OWN_SCRIPT.get(language)
    return script is None or bool(script.search(text))


def total_logprob(result: Any) -> float:
    """The log probability of a decode's whole transcript (CTranslate2 scores the mean)."""
    return float(result.scores[0]) * len(result.sequences_ids[0])


def runs_on(result: Any, text: str, budget: int) -> bool:
    """Did the decode use up its ``budget`` of tokens, or repeat itself?"""
    return len(result.sequences_ids[0]) >= budget or loops(text)


def loops(text: str) -> bool:
    """Does a run of ``REPEAT`` words come back (Whisper repeating itself)?"""
    words = re.sub(r"[^\w\s']", " ", text.lower()).split()
    runs = [tuple(words[i : i + REPEAT]) for i in range(len(words) - REPEAT + 1)]
    return len(runs) != len(set(runs))
