"""Whether the STT's guess and the final transcript ask the same question.

The guess is Whisper's text of the audio up to a pause; the final is its text of the
whole turn. When the turn ended at that pause they are the same audio, but a guess
made at an earlier pause, or a second run, can come back with other punctuation
("Rome" / "Rome?"), other case, or a filler the user added ("..., please"). The LLM
answers those the same way, so a prepared answer is kept for them. Accepted, and
nothing else:
- case, punctuation (every Unicode punctuation mark, apostrophes too: "what's" =
  "whats") and spacing;
- one trailing word from ``FILLERS`` on either side (hesitations, "please", "thanks");
  any other word, trailing or not, is a different question ("Rome" / "Rome tomorrow").
"""

from __future__ import annotations

import unicodedata

FILLERS = frozenset({
    "um", "uh", "er", "erm", "ehm", "hmm", "mm", "ah", "eh",
    "please", "thanks", "ok", "okay",
    "grazie", "dai", "allora",
    "ええと", "えーと", "あの",
})
"""Trailing words that change no answer: hesitations and courtesies (English, Italian,
Japanese; the languages of the built-in voices)."""


def words(text: str) -> list[str]:
    """The words of ``text``: NFKC, case-folded, every punctuation mark dropped (an
    apostrophe joins, others separate)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("'", "").replace("\u2019", "")
    kept = (" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return "".join(kept).split()


def without_filler(ws: list[str]) -> list[str]:
    return ws[:-1] if len(ws) > 1 and ws[-1] in FILLERS else ws


def same_words(guess: str, final: str) -> bool:
    """The same question, but for case, punctuation, spacing or a trailing filler."""
    a, b = words(guess), words(final)
    return a == b or without_filler(a) == without_filler(b)
