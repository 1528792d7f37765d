"""Yes and no read locally in English, Italian and Japanese; neither or both is unclear."""

from __future__ import annotations

import pytest

from services.dialogue.intents.yes_no import is_short, yes_or_no

YES = ["Yes.", "Yes, please.", "Yeah, sure.", "Go ahead.", "Do it.", "Okay.", "Of course!",
       "Sì.", "Si, certo.", "Va bene.", "Procedi.", "はい。", "うん", "はい、お願いします。",
       "オッケー"]
NO = ["No.", "No thanks.", "Nope.", "Don't.", "Cancel that.", "Never mind.", "Wait!",
      "No, annulla.", "Lascia stare.", "Non farlo.", "いいえ。", "ううん", "いや、やめて。",
      "結構です"]
NEITHER = ["Mhm.", "Hmm, well.", "Yes, no, wait.", "ええと", "Notes", "Nothing.", "Yesterday",
           "Sicily", "Cancelled flights to Rome?"]


@pytest.mark.parametrize("text", YES)
def test_yes(text: str) -> None:
    assert yes_or_no(text) == "yes"


@pytest.mark.parametrize("text", NO)
def test_no(text: str) -> None:
    assert yes_or_no(text) == "no"


@pytest.mark.parametrize("text", NEITHER)
def test_neither_or_both_is_unclear(text: str) -> None:
    assert yes_or_no(text) is None


@pytest.mark.parametrize(
    ("text", "short"),
    [("Mhm.", True), ("Hmm, well.", True), ("Put it on Friday instead", False),
     ("Weather?", False), ("何時ですか", False), ("えっと", True)],
)
def test_a_short_answer_is_a_mishearing_a_longer_one_or_a_question_is_new(
    text: str, short: bool
) -> None:
    assert is_short(text) is short
