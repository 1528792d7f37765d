"""Whether a transcript stops where no sentence can: after an article, a preposition, a
conjunction or a possessive ("what is the weather like in"), or, in
Japanese, after a particle or a conjunction ("明日の東京の", "起きれば") or on a noun
("キッチンの電気"); and whether the STT left it open, without the full stop, question
or exclamation mark Whisper ends a sentence with ("Send a message to my brother",
"Set a timer for...").

The second opinion of the end of turn: the audio model hears intonation, which a
person who stops to think can keep falling; the words say plainly that the question
goes on. Only the last word counts, so a question that ends with one of these words
on purpose ("what are you thinking of?") waits for the long silence, as before.
"""

from __future__ import annotations

import unicodedata

DANGLING = {
    "en": frozenset("""
        a an the my your his her our their its this that these those some any every
        of in on at to for from with about into onto by as than
        and or but nor because if
        what which whose
    """.split()),
    "it": frozenset("""
        il lo la i gli le un uno una l
        di a da in con su per tra fra del dello della dei degli delle al allo alla ai
        agli alle dal dallo dalla dai dagli dalle nel nello nella nei negli nelle sul
        sullo sulla sui sugli sulle
        mio mia miei mie tuo tua suo sua nostro nostra vostro vostra loro
        e o ma che se
    """.split()),
}
"""Words no finished sentence ends on. Not the verbs, the question words or "like" and
"so": "What can you do?", "Che ore sono?", "Why?", "What's the weather like?" and "I
think so" end on them, and a finished question judged unfinished waits the longest."""
PARTICLES_JA = ("の", "を", "に", "が", "は", "と", "で", "へ", "も", "から", "まで", "より", "や",
                "ば", "たら", "だら", "けど", "けれど", "ながら")
"""Case particles, and the conjunctions that join a clause to the next ("起きれば", "高いけど").
Not the te-form: "つけて" is a whole request as often as a clause that goes on."""
LENGTHENING_JA = "ー〜"
"""Marks that stretch the sound before them ("ねー"): the word ends on what they follow."""


def _letters(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    return "".join(" " if unicodedata.category(ch)[0] in "PZS" and ch != "'" else ch
                   for ch in text)


def dangling(text: str, lang: str) -> bool:
    """Does ``text`` (in ``lang``: ``en``, ``it``, ``ja``) end mid-sentence? Other languages:
    never (nothing is known about them)."""
    words = _letters(text).split()
    if not words:
        return False
    last = words[-1]
    if lang == "ja":
        return last.endswith(PARTICLES_JA) or _ends_on_noun(last)
    if lang == "it" and "'" in last:  # "dell'", "l'": an elided article
        return last.endswith("'")
    return last.strip("'") in DANGLING.get(lang, frozenset())


PUNCTUATED = frozenset({"en", "it"})
"""Languages whose finished questions Whisper ends with ``.``, ``?`` or ``!``: all 44 in
English and Italian of ``bench/endpointing.py`` (Whisper base, two voices), where it
left 21 of the 44 first halves of those questions open. Not Japanese: a finished
question has no ``。`` as often as it has one."""
SENTENCE_ENDS = (".", "?", "!")
CLOSING = "\"'\u201d\u2019)]»"
"""Quotes and brackets that may follow the sentence's last mark ('saying "I'm late."')."""


def left_open(text: str, lang: str) -> bool:
    """Whether Whisper left ``text`` (in ``lang``) open: its last sentence has no closing
    mark, or trails off ("for..."). Whisper's punctuation is its language model's
    reading of the words and the voice, trained on subtitles that mark a sentence that
    goes on. Less sure than a dangling word: such a turn waits for ``[vad] silence``,
    not past it. Languages outside ``PUNCTUATED``: never."""
    end = _last_mark(text)
    if lang not in PUNCTUATED or not end:
        return False
    return end.endswith("..") or not end.endswith(SENTENCE_ENDS)


def trails_off(text: str, lang: str) -> bool:
    """Whether Whisper wrote ``text`` (in ``lang``) trailing off or on a comma ("Set a timer
    for...", "Metti un po' di musica,"): a sentence it heard go on, which says more than
    a missing mark. Languages outside ``PUNCTUATED``: never."""
    return lang in PUNCTUATED and _last_mark(text).endswith(("..", ","))


def _last_mark(text: str) -> str:
    """``text`` up to its last mark: without the spaces, quotes and brackets after it."""
    return unicodedata.normalize("NFKC", text).rstrip().rstrip(CLOSING).rstrip()


def _ends_on_noun(text: str) -> bool:
    """A Japanese sentence ends on its predicate (a verb, an adjective, the copula) or a
    sentence-final particle, which end in kana ("つけてください", "どこですか"); one that
    ends in kanji or katakana ends on a noun ("キッチンの電気"), with the predicate still
    to come. A bare noun said as a whole request ("東京の天気") waits the long silence."""
    stem = text.rstrip(LENGTHENING_JA)
    if not stem:
        return False
    return unicodedata.name(stem[-1], "").startswith(("CJK UNIFIED", "CJK COMPATIBILITY",
                                                      "IDEOGRAPHIC ITERATION", "KATAKANA"))
