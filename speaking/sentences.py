"""Cut streamed text into sentences to speak as soon as each one is complete.

The splitter sees text in fragments (LLM tokens) and returns a sentence the
moment it can tell that the sentence is over, which for a full stop is when
the next non-space character arrives (a lower-case letter after "approx."
means the sentence goes on). It knows Italian, English and Japanese
punctuation, abbreviations, decimals, numbered lists and ellipses. The first
piece of a reply may be cut at a clause boundary (a comma after enough words)
so that speech starts sooner.
"""

from __future__ import annotations

LATIN_ENDS = ".!?…"
CJK_ENDS = "。！？"
CLOSERS = "\"'”’»)]}」』）】"
CLAUSE_MARKS = ",;:"
CJK_CLAUSE_MARKS = "、"
DASHES = "—–"

ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt vs e.g i.e cf approx ca fig vol nr pp
    jan feb mar apr jun jul aug sep sept oct nov dec
    sig sigg sig.ra sig.na dott dott.ssa ing avv arch geom rag egr gent pag tel
    """.split()
)
"""Words (lower case, without the final dot) after which a full stop never ends a sentence."""


class SentenceSplitter:
    """``feed(fragment)`` returns the sentences completed so far; ``flush()`` the rest."""

    def __init__(self, first_clause_min: int = 30, cjk_first_clause_min: int = 12) -> None:
        self.first_clause_min = first_clause_min
        """A clause mark may cut the first piece once it has this many characters."""
        self.cjk_first_clause_min = cjk_first_clause_min
        """The same for ``、`` (Japanese packs more meaning per character)."""
        self._buf = ""
        self._scan = 0
        self._emitted = False

    def feed(self, fragment: str) -> list[str]:
        self._buf += fragment
        out: list[str] = []
        while (cut := self._next_cut()) is not None:
            piece, self._buf = self._buf[:cut].strip(), self._buf[cut:]
            self._scan = 0
            if piece:
                out.append(piece)
                self._emitted = True
        return out

    def flush(self) -> str:
        """Whatever is left (the last sentence, complete or not); the splitter starts over."""
        rest, self._buf, self._scan = self._buf.strip(), "", 0
        return rest

    def discard(self) -> str:
        """Drop the pending text without it counting as spoken; returns it."""
        return self.flush()

    @property
    def pending(self) -> str:
        return self._buf

    def _next_cut(self) -> int | None:
        """Index just after the next sentence end, or None (and where to resume) if unknown yet."""
        buf, i = self._buf, self._scan
        while i < len(buf):
            ch = buf[i]
            if ch == "\n":
                if buf[:i].strip():
                    return i + 1
            elif ch in CJK_ENDS:
                end = _skip(buf, i, CJK_ENDS + CLOSERS)
                if end == len(buf):
                    break  # a closing bracket may still follow
                return end
            elif ch in LATIN_ENDS:
                end = _skip(buf, i, LATIN_ENDS)
                verdict = self._latin_end(buf, i, end)
                if verdict is None:
                    break
                if verdict:
                    return _skip(buf, end, CLOSERS)
                i = end
                continue
            elif not self._emitted and ch in CLAUSE_MARKS + CJK_CLAUSE_MARKS + DASHES:
                verdict = self._clause_cut(buf, i)
                if verdict is None:
                    break
                if verdict:
                    return i + 1
            i += 1
        self._scan = i
        return None

    def _latin_end(self, buf: str, start: int, end: int) -> bool | None:
        """Does the run of ``.!?…`` at ``start:end`` end a sentence? None = not known yet."""
        after = _skip(buf, end, CLOSERS)
        if after == len(buf):
            return None
        if not buf[after].isspace():
            return False  # 3.14, e.g.x, "Yahoo!News"
        run = buf[start:end]
        if "!" in run or "?" in run:
            return True
        nxt = _skip_space(buf, after)
        if buf.find("\n", after, nxt) >= 0:
            return True
        if nxt == len(buf):
            return None
        following = buf[nxt]
        if run == ".":
            word = _word_before(buf, start)
            if word.lower() in ABBREVIATIONS or _is_initial(word):
                return False
            if word.isdigit() and len(word) <= 2 and not buf[: start - len(word)].strip():
                return False  # "1. First step": a list marker, not a sentence
            return not following.islower()
        # An ellipsis ends the sentence only when a new one visibly starts.
        return following.isupper() or following in '"“«('

    def _clause_cut(self, buf: str, i: int) -> bool | None:
        """May the first piece end at the clause mark ``buf[i]``? None = not known yet."""
        ch = buf[i]
        size = len(buf[:i].strip())
        if ch in CJK_CLAUSE_MARKS:
            return size >= self.cjk_first_clause_min
        if size < self.first_clause_min or (ch in DASHES and not buf[i - 1].isspace()):
            return False
        if i + 1 == len(buf):
            return None
        return buf[i + 1].isspace()  # not "3,5" or "10:30"


def _skip(buf: str, i: int, chars: str) -> int:
    while i < len(buf) and buf[i] in chars:
        i += 1
    return i


def _skip_space(buf: str, i: int) -> int:
    while i < len(buf) and buf[i].isspace():
        i += 1
    return i


def _word_before(buf: str, end: int) -> str:
    start = end
    while start > 0 and not buf[start - 1].isspace():
        start -= 1
    word = buf[start:end].lstrip("\"'“‘«([{")
    return word.rsplit("'", 1)[-1].rsplit("’", 1)[-1]  # "l'ing." is "ing."


def _is_initial(word: str) -> bool:
    """A single capital letter ("J. R. R. Tolkien")."""
    return len(word) == 1 and word.isupper()
