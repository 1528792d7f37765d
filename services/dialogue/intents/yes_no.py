"""Yes or no, read locally in every language the assistant speaks, without the LLM.

A confirmation must not depend on the model (it is the one asking to act) nor on
the language Whisper guessed for two syllables ("Sì" heard as English), so the
words of all languages are looked for in any answer. Whole words only in English
and Italian ("no" in "notes" is no no); Japanese has no spaces, so its words are
looked for inside the text. An answer with both a yes and a no ("yes, no, wait")
is neither: the question is asked again.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

YES_WORDS = (
    # English
    "yes", "yeah", "yep", "yup", "sure", "do it", "go ahead", "okay", "ok", "please do",
    "confirm", "confirmed", "of course", "correct", "affirmative", "absolutely",
    # Italian
    "sì", "si", "certo", "va bene", "fallo", "procedi", "conferma", "confermo", "d'accordo",
    "esatto", "certamente", "vai",
)
NO_WORDS = (
    "no", "nope", "nah", "don't", "do not", "cancel", "stop", "never mind", "nevermind",
    "not now", "negative", "wait",
    "annulla", "non farlo", "lascia stare", "lascia perdere", "fermati", "aspetta", "niente",
)
YES_JA = ("はい", "うん", "お願い", "いいよ", "どうぞ", "やって", "オッケー", "そうです")
NO_JA = ("いいえ", "いや", "やめて", "やめる", "キャンセル", "だめ", "ダメ", "結構です", "しないで",
         "ううん", "待って")

SHORT_WORDS = 3
"""An answer of at most this many words that is neither yes nor no, and asks nothing, is a
mishearing (the question is asked again); a longer one or a question is a new question
(the action is cancelled)."""
SHORT_JA_CHARS = 8

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFC", text).lower().replace("’", "'")
    return _WORD.findall(folded)


def _has(words: list[str], phrases: tuple[str, ...]) -> bool:
    joined = " " + " ".join(words) + " "
    return any(f" {phrase} " in joined for phrase in phrases)


def yes_or_no(text: str) -> Literal["yes", "no"] | None:
    """``yes``, ``no``, or None when the answer says neither or both."""
    words = _words(text)
    no_ja = [word for word in NO_JA if word in text]
    rest = text
    for word in no_ja:  # "ううん" (no) holds "うん" (yes): what said no says nothing more
        rest = rest.replace(word, " ")
    yes = _has(words, YES_WORDS) or any(word in rest for word in YES_JA)
    no = _has(words, NO_WORDS) or bool(no_ja)
    if yes == no:
        return None
    return "yes" if yes else "no"


def is_short(text: str) -> bool:
    """Whether an answer that is neither yes nor no is short enough to be a mishearing."""
    words = _words(text)
    if text.rstrip().endswith(("?", "？", "か")):
        return False
    if any(ord(ch) > 0x3000 for ch in text):  # Japanese: no spaces to count words by
        return len(text.strip()) <= SHORT_JA_CHARS
    return len(words) <= SHORT_WORDS
