"""Cut text into clause-sized pieces: the first can play while the next is synthesized."""

from __future__ import annotations

import re
from dataclasses import dataclass

SENTENCE_END = ".!?。！？…"
CLAUSE_END = ",;:、，；："
SENTENCE_PAUSE = 0.25
CLAUSE_PAUSE = 0.1
MAX_CHARS = 100
"""A clause longer than this is cut at a space (synthesis time grows with length)."""
MIN_LIMIT = 16
"""The shortest limit :func:`limit_for` gives: a listener is waiting for this piece (the
default of ``[audio] first_piece``)."""
CHARS_PER_QUEUED_SECOND = 20
"""Text that can be synthesized while one second of queued audio plays, with a margin
(speech is ~15 characters a second; Kokoro's real-time factor ~0.5 here, more under load)."""
MIN_CHARS = 8
"""A shorter fragment (``Well,``) joins the next one: alone it would sound clipped."""
PHRASE_STARTS = frozenset(
    """of in on at to for with from by about into over under after before and but or so
    because than that which who when where while if
    di da con su per tra fra ed ma che perché quando mentre se come""".split()
)
"""Prepositions and conjunctions (English, Italian): a piece cut before one of them ends where
a speaker could pause ("The capital | of Australia is Canberra"), not inside a phrase."""

# ASCII marks only count before whitespace ("3.5", "e.g.x" stay whole); CJK marks always.
_BOUNDARY = re.compile(r"(?<=[.!?…,;:])\s+|(?<=[。！？、，；：])\s*")


@dataclass(frozen=True)
class Piece:
    text: str
    pause: float
    """Seconds of silence after it, as its last mark asks."""


def split_clauses(text: str) -> list[Piece]:
    """The pieces of ``text`` in order, each at most ``MAX_CHARS``; blank text has none."""
    parts = [p.strip() for p in _BOUNDARY.split(text) if p.strip()]
    merged: list[str] = []
    for part in parts:
        if merged and len(merged[-1]) < MIN_CHARS:
            merged[-1] = _join(merged[-1], part)
        else:
            merged.append(part)
    pieces: list[Piece] = []
    for part in merged:
        for chunk in _cut_long(part):
            pieces.append(Piece(chunk, _pause_after(chunk)))
    return pieces


def limit_for(queued_seconds: float, shortest: int = MIN_LIMIT) -> int:
    """How long the next piece may be so it is ready before the queued audio runs out;
    ``shortest`` when nothing is queued (the first piece of a reply)."""
    return max(shortest, min(MAX_CHARS, int(queued_seconds * CHARS_PER_QUEUED_SECOND)))


def cut_piece(piece: Piece, limit: int) -> tuple[Piece, Piece | None]:
    """``piece`` if it fits ``limit``, else its head (cut at a space) and the rest."""
    if len(piece.text) <= limit:
        return piece, None
    head, rest = _cut_at_space(piece.text, limit)
    return Piece(head, 0.0), Piece(rest, piece.pause)


def _join(left: str, right: str) -> str:
    return left + right if ord(left[-1]) > 0x2FFF else f"{left} {right}"  # CJK: no spaces


def _cut_long(text: str) -> list[str]:
    chunks = []
    while len(text) > MAX_CHARS:
        chunk, text = _cut_at_space(text, MAX_CHARS)
        chunks.append(chunk)
    if text:
        chunks.append(text)
    return chunks


def _cut_at_space(text: str, limit: int) -> tuple[str, str]:
    """The head of ``text`` up to a space before ``limit``, and the rest: the last space
    before a word that starts a phrase ("in the morning", "with a light wind") if there is
    one in the second half, else the last space."""
    spaces = [i for i in range(limit // 2, min(limit, len(text))) if text[i] == " "]
    starts = [i for i in spaces if _next_word(text, i) in PHRASE_STARTS]
    if starts:
        cut = starts[-1]
    elif spaces:
        cut = spaces[-1]
    else:
        cut = limit  # no space (Japanese without 、): cut anyway
    return text[:cut].strip(), text[cut:].strip()


def _next_word(text: str, space: int) -> str:
    return text[space + 1 :].split(" ", 1)[0].strip(".,;:!?\"'").lower()


def _pause_after(text: str) -> float:
    last = text[-1]
    if last in SENTENCE_END:
        return SENTENCE_PAUSE
    if last in CLAUSE_END:
        return CLAUSE_PAUSE
    return 0.0
