"""A text turn's answer while it streams: the dialogue's ``TextPiece``s, routed by turn, and
joined into the text the ``Reply`` will hold."""

from __future__ import annotations

import asyncio

from bus.messages import TextPiece


class Pieces:
    """The turns followed now, each with a queue of its pieces."""

    def __init__(self) -> None:
        self._queues: dict[str, asyncio.Queue[TextPiece]] = {}

    def open(self, turn: str) -> asyncio.Queue[TextPiece]:
        """The pieces of ``turn`` from now on: opened before the question is asked, so that
        none is missed, and closed when its answer is in."""
        queue: asyncio.Queue[TextPiece] = asyncio.Queue()
        self._queues[turn] = queue
        return queue

    def close(self, turn: str) -> None:
        self._queues.pop(turn, None)

    def route(self, piece: TextPiece) -> None:
        queue = self._queues.get(piece.turn or "")
        if queue is not None:
            queue.put_nowait(piece)


class Joiner:
    """Pieces in, the text to show out, so that everything shown adds up to the reply's text:
    each round's text stripped, rounds joined with a space. Spaces at the end of what came so
    far are held until text follows them."""

    def __init__(self) -> None:
        self.shown = ""
        self._round: int | None = None
        self._started = False
        self._space = ""

    def add(self, piece: TextPiece) -> str:
        text = piece.text
        if piece.round != self._round:
            self._round, self._started = piece.round, False
            self._space = " " if self.shown else ""
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""
            self._started = True
        body = text.rstrip()
        if not body:
            self._space += text
            return ""
        out, self._space = self._space + body, text[len(body) :]
        self.shown += out
        return out

    def rest(self, reply: str) -> str:
        """What the reply holds beyond what was shown: all of it when no piece came (a
        repeated request's kept answer), the end of it when the last pieces were late; for
        an answer that went another way (a failed turn's apology), the reply on a new line."""
        if reply.startswith(self.shown):
            return reply[len(self.shown) :]
        return "\n\n" + reply
