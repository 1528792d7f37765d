"""The sentence splitter: what is cut where, whatever the streaming fragments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speaking.sentences import SentenceSplitter


def split(text: str, **kwargs: int) -> list[str]:
    """Every piece the splitter yields for ``text`` fed whole, then flushed."""
    splitter = SentenceSplitter(**kwargs)
    pieces = splitter.feed(text)
    rest = splitter.flush()
    return pieces + ([rest] if rest else [])


def split_streamed(fragments: list[str], **kwargs: int) -> list[str]:
    splitter = SentenceSplitter(**kwargs)
    pieces = [p for f in fragments for p in splitter.feed(f)]
    rest = splitter.flush()
    return pieces + ([rest] if rest else [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello there. How are you?", ["Hello there.", "How are you?"]),
        ("Wow! Really? Yes.", ["Wow!", "Really?", "Yes."]),
        ("What?! No way.", ["What?!", "No way."]),
        ('He said "stop." Then he left.', ['He said "stop."', "Then he left."]),
        ("(It works.) Good.", ["(It works.)", "Good."]),
        ("It is 3.14 today. Yes.", ["It is 3.14 today.", "Yes."]),
        ("It costs 5 euros. 3 people came.", ["It costs 5 euros.", "3 people came."]),
        ("Mr. Smith and Dr. Jones met.", ["Mr. Smith and Dr. Jones met."]),
        ("Use fruit, e.g. Apples, or nuts.", ["Use fruit, e.g. Apples, or nuts."]),
        ("It is approx. five km away.", ["It is approx. five km away."]),
        ("J. R. R. Tolkien wrote it. Yes.", ["J. R. R. Tolkien wrote it.", "Yes."]),
        ("On Jan. 5 it snowed.", ["On Jan. 5 it snowed."]),
        ("Turn it on. Then wait.", ["Turn it on.", "Then wait."]),
        ("I said no. Then I left.", ["I said no.", "Then I left."]),
        ("Wait... what happened?", ["Wait... what happened?"]),
        ("I see... Then let's go.", ["I see...", "Then let's go."]),
        ("I see… Then let's go.", ["I see…", "Then let's go."]),
        ("1. Open the door. 2. Close it.", ["1. Open the door.", "2. Close it."]),
        ("Buy milk\n- eggs\n- bread", ["Buy milk", "- eggs", "- bread"]),
        ("First paragraph.\n\nSecond one", ["First paragraph.", "Second one"]),
        ("No final punctuation", ["No final punctuation"]),
        ("", []),
    ],
)
def test_english_and_general(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ciao! Come stai? Bene.", ["Ciao!", "Come stai?", "Bene."]),
        ("Il sig. Rossi è arrivato. Bene.", ["Il sig. Rossi è arrivato.", "Bene."]),
        ("Sono 3,5 gradi. Fa freddo.", ["Sono 3,5 gradi.", "Fa freddo."]),
        ("La dott.ssa Bianchi e l'ing. Verdi.", ["La dott.ssa Bianchi e l'ing. Verdi."]),
        ("Mele, pere, ecc. Poi basta.", ["Mele, pere, ecc.", "Poi basta."]),
        ("«Vieni.» Poi uscì.", ["«Vieni.»", "Poi uscì."]),
    ],
)
def test_italian(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("こんにちは。元気ですか？はい！", ["こんにちは。", "元気ですか？", "はい！"]),
        ("彼は「行く。」と言った。", ["彼は「行く。」", "と言った。"]),
        ("本当？！すごい。", ["本当？！", "すごい。"]),
        ("気温は3.5度です。晴れ。", ["気温は3.5度です。", "晴れ。"]),
        ("まだ途中", ["まだ途中"]),
    ],
)
def test_japanese(text: str, expected: list[str]) -> None:
    assert split(text, cjk_first_clause_min=100) == expected


def test_long_first_sentence_is_cut_at_a_clause() -> None:
    text = (
        "The weather in Rome today is sunny and warm, with a light breeze from the sea, "
        "and it stays dry. Tomorrow, rain."
    )
    assert split(text) == [
        "The weather in Rome today is sunny and warm,",
        "with a light breeze from the sea, and it stays dry.",
        "Tomorrow, rain.",
    ]


def test_short_first_clause_is_not_cut() -> None:
    assert split("Sure, it is five o'clock. Bye.") == ["Sure, it is five o'clock.", "Bye."]


def test_clause_cut_skips_numbers_and_times() -> None:
    text = "The train that leaves at 10:30 costs 1,500 yen; it is the fastest one."
    assert split(text) == [
        "The train that leaves at 10:30 costs 1,500 yen;",
        "it is the fastest one.",
    ]


def test_clause_cut_at_a_dash() -> None:
    text = "There are three trains this evening — the last one leaves at nine. Ok."
    assert split(text) == [
        "There are three trains this evening —",
        "the last one leaves at nine.",
        "Ok.",
    ]


def test_japanese_first_clause_is_cut_at_the_comma() -> None:
    text = "東京の今日の天気は晴れで、気温は二十度です。明日は雨です。"
    assert split(text) == ["東京の今日の天気は晴れで、", "気温は二十度です。", "明日は雨です。"]


def test_sentences_come_out_as_soon_as_they_are_known() -> None:
    splitter = SentenceSplitter()
    assert splitter.feed("Hello there") == []
    assert splitter.feed(".") == []  # could be "there.com" or an abbreviation
    assert splitter.feed(" ") == []
    assert splitter.feed("How") == ["Hello there."]
    assert splitter.feed(" are you?") == []
    assert splitter.feed(" Fine") == ["How are you?"]
    assert splitter.flush() == "Fine"
    assert splitter.flush() == ""


def test_japanese_sentence_waits_only_for_a_possible_closing_bracket() -> None:
    splitter = SentenceSplitter()
    assert splitter.feed("はい。") == []
    assert splitter.feed("次") == ["はい。"]


def test_clause_cut_happens_only_once_per_reply() -> None:
    splitter = SentenceSplitter(first_clause_min=5)
    assert splitter.feed("One two three, four five six, seven. ") == ["One two three,"]
    assert splitter.feed("Eight nine ten, eleven. X") == [
        "four five six, seven.",
        "Eight nine ten, eleven.",
    ]


SAMPLES = [
    "Hello there. How are you? I'm fine... Thanks! Mr. Smith paid 3.50 euros, e.g. Cash.",
    "The weather in Rome today is sunny and warm, with a light breeze, and dry. Ok!",
    "東京の今日の天気は晴れで、気温は二十度です。「はい。」明日は？雨！",
    "Il sig. Rossi ha 3,5 anni... Davvero? Sì.\n- uno\n- due",
    "1. Open it. 2. Close it — then leave; ok: done.",
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SAMPLES), st.lists(st.integers(min_value=0, max_value=200), max_size=30))
def test_fragmentation_never_changes_the_result(text: str, cuts: list[int]) -> None:
    points = sorted({c % (len(text) + 1) for c in cuts})
    fragments = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert split_streamed(fragments) == split(text)
