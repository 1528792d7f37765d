"""The streamed answer of ``ask`` ends as the reply's text, whatever the pieces' spacing."""

from __future__ import annotations

import io

from bus.messages import TextPiece
from desktop_assistant.commands.streamed import StreamedText


def streamed(pieces: list[tuple[int, str]], reply: str) -> str:
    out = io.StringIO()
    stream = StreamedText(out)
    for round_number, text in pieces:
        stream.piece(TextPiece(text=text, round=round_number, turn="t"))
    stream.end(reply)
    return out.getvalue()


def test_rounds_are_joined_as_the_reply_joins_them() -> None:
    pieces = [(0, "\n Let me "), (0, "check. \n"), (1, "  "), (1, " It is "), (1, "5 pm.\n")]
    # the dialogue's reply: each round stripped, joined with a space
    assert streamed(pieces, "Let me check. It is 5 pm.") == "Let me check. It is 5 pm.\n"


def test_a_reply_the_pieces_did_not_say_follows_on_its_own_line() -> None:
    apology = "Sorry, I could not reach the language model."
    assert streamed([(0, "Half an ans")], apology) == f"Half an ans\n{apology}\n"
    assert streamed([], apology) == f"{apology}\n"
