"""The streamed text adds up to the reply's text: each round stripped, rounds joined."""

from __future__ import annotations

from bus.messages import TextPiece
from services.brain.pieces import Joiner


def shown(*pieces: tuple[int, str]) -> tuple[Joiner, list[str]]:
    joiner = Joiner()
    return joiner, [joiner.add(TextPiece(text=t, round=r, turn="t")) for r, t in pieces]


def test_spaces_are_held_until_text_follows_and_rounds_are_joined_with_one() -> None:
    joiner, out = shown(
        (0, "  Let me "), (0, "look. \n"), (1, "\n It is"), (1, " 21 C.\n\n- warm"), (1, "  ")
    )
    assert out == ["Let me", " look.", " It is", " 21 C.\n\n- warm", ""]
    reply = " ".join(["Let me look.", "It is 21 C.\n\n- warm"])  # as the dialogue joins rounds
    assert joiner.shown == reply
    assert joiner.rest(reply) == ""


def test_the_rest_of_the_reply_comes_after_what_was_shown() -> None:
    joiner, _ = shown((0, "It is"))
    assert joiner.rest("It is noon.") == " noon."
    assert Joiner().rest("A kept answer.") == "A kept answer."
    assert joiner.rest("Sorry, something went wrong.") == "\n\nSorry, something went wrong."
