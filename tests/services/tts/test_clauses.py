"""Cutting replies into clause-sized pieces."""

from __future__ import annotations

from services.tts.clauses import (
    CLAUSE_PAUSE,
    MAX_CHARS,
    MIN_LIMIT,
    SENTENCE_PAUSE,
    Piece,
    cut_piece,
    limit_for,
    split_clauses,
)


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


def test_pieces_grow_with_the_audio_queued_ahead_of_them() -> None:
    assert limit_for(0.0) == MIN_LIMIT
    assert MIN_LIMIT < limit_for(3.0) < limit_for(4.5) <= MAX_CHARS == limit_for(60)


def test_a_piece_over_the_limit_is_cut_at_a_space_and_keeps_its_pause() -> None:
    piece = Piece("The weather in Rome is sunny today with a light wind.", SENTENCE_PAUSE)
    head, rest = cut_piece(piece, 32)
    assert head == Piece("The weather in Rome is sunny", 0.0)
    assert rest == Piece("today with a light wind.", SENTENCE_PAUSE)
    assert cut_piece(rest, 32) == (rest, None)


def test_a_cut_falls_before_a_phrase_where_one_starts() -> None:
    head, rest = cut_piece(Piece("The capital of Australia is Canberra.", SENTENCE_PAUSE), 16)
    assert (head.text, rest.text if rest else None) == ("The capital", "of Australia is Canberra.")
    head, rest = cut_piece(Piece("It is a quarter past ten in the morning.", SENTENCE_PAUSE), 16)
    assert head.text == "It is a quarter"  # no phrase starts in reach: the last space
    head, _ = cut_piece(Piece("Tomorrow in Rome it will be cloudy, with rain.", 0.0), 32)
    assert head.text == "Tomorrow in Rome it will be"
