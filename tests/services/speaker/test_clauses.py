"""Cutting replies into clause-sized pieces."""

from __future__ import annotations

from services.speaker.clauses import CLAUSE_PAUSE, MAX_CHARS, SENTENCE_PAUSE, Piece, split_clauses


def texts(text: str) -> list[str]:
    return [p.text for p in split_clauses(text)]


def test_a_long_sentence_is_cut_at_its_clauses() -> None:
    assert split_clauses("The weather in Rome is sunny today, with a high of twenty degrees.") == [
        Piece("The weather in Rome is sunny today,", CLAUSE_PAUSE),
        Piece("with a high of twenty degrees.", SENTENCE_PAUSE),
    ]


def test_marks_inside_words_and_numbers_do_not_cut() -> None:
    assert texts("It costs 3.5 euros, i.e.cheap") == ["It costs 3.5 euros,", "i.e.cheap"]


def test_tiny_fragments_join_the_next_piece() -> None:
    assert texts("Sure, I can do that.") == ["Sure, I can do that."]


def test_japanese_is_cut_at_its_own_marks() -> None:
    assert texts("今日はいい天気ですね、散歩に行きましょう。はい。") == [
        "今日はいい天気ですね、", "散歩に行きましょう。", "はい。",
    ]


def test_a_clause_without_marks_is_cut_at_a_space_below_the_limit() -> None:
    pieces = texts("word " * 100)
    assert all(len(p) <= MAX_CHARS for p in pieces)
    assert " ".join(pieces).split() == ["word"] * 100


def test_blank_text_has_no_pieces() -> None:
    assert split_clauses("  ") == []


def test_the_first_piece_can_be_held_shorter_for_a_waiting_listener() -> None:
    text = "The weather in Rome is sunny today with a light wind from the sea."
    pieces = texts_of(split_clauses(text, first_max=40))
    assert len(pieces[0]) <= 40
    assert " ".join(pieces) == text


def texts_of(pieces: list[Piece]) -> list[str]:
    return [p.text for p in pieces]
