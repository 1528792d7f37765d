"""A text turn's answer written as the dialogue's ``TextPiece``s come, not once it is whole.

The pieces are joined the way the dialogue joins them into the :class:`Reply`: each LLM
round stripped, rounds separated by one space. Whitespace at the end of what came so far
is held back until more text follows, so the stream ends exactly as the reply's text.
"""

from __future__ import annotations

from typing import TextIO

from bus.messages import TextPiece


class StreamedText:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown = ""
        """What was written so far."""
        self._round: int | None = None
        self._held = ""

    def piece(self, piece: TextPiece) -> None:
        text = piece.text
        if piece.round != self._round:
            text = text.lstrip()
            if not text:
                return  # a round begins with its first words
            self._round = piece.round
            self._held = " " if self.shown else ""
        text = self._held + text
        body = text.rstrip()
        self._held = text[len(body) :]
        if body:
            self._write(body)

    def end(self, reply: str) -> None:
        """The whole reply came: write what the pieces did not say (the reply itself when
        none came, or when it differs from them: an apology, a phrase said instead)."""
        if not self.shown:
            self._write(reply)
        elif self.shown != reply:
            self._write("\n" + reply)
        self._write("\n")

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
        self.shown += text
