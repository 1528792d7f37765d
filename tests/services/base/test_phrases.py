"""The phrase catalog: every error code has words in every language, and the codes are
produced by name only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bus.errors import ErrorCode
from services.base.phrases import APOLOGIES, CANNOT_GO, LANGUAGES, LOST_AT, apology, cannot_go

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_code_has_a_phrase_in_every_language(code: ErrorCode) -> None:
    assert set(APOLOGIES[code]) == set(LANGUAGES)
    for lang in LANGUAGES:
        text, said_in = apology(code, lang, where="localhost, port 8181")
        assert text.strip() and "{" not in text and said_in == lang


@pytest.mark.parametrize("table", [LOST_AT, CANNOT_GO], ids=["lost-at", "cannot-go"])
def test_the_other_tables_are_complete_too(table: dict[str, dict[str, str]]) -> None:
    if table is CANNOT_GO:
        assert set(table) == set(LANGUAGES)
        assert all(set(words) == {"up", "down"} for words in table.values())
    else:
        assert all(set(words) == set(LANGUAGES) for words in table.values())


def test_the_words_of_the_former_tables_are_unchanged() -> None:
    assert apology(ErrorCode.STT_FAILED, "it") == ("Scusa, non ho capito.", "it")
    took_too_long = "すみません、言語モデルの応答に時間がかかりすぎました。"
    assert apology(ErrorCode.LLM_TIMEOUT, "ja")[0] == took_too_long
    assert apology(ErrorCode.TURN_LOST, "en", stage="mic")[0] == (
        "Sorry, I stopped hearing you. Please say that again."
    )
    assert cannot_go("up", "ja-JP") == "これ以上大きくできません"


def test_a_language_or_code_the_catalog_lacks_falls_back() -> None:
    assert apology(ErrorCode.LLM_ERROR, "fr") == (APOLOGIES[ErrorCode.LLM_ERROR]["en"], "en")
    assert apology("no-such-code", "it")[0] == APOLOGIES[ErrorCode.INTERNAL_ERROR]["it"]
    unknown_stage = apology(ErrorCode.TURN_LOST, "en", stage="broker")[0]
    assert unknown_stage == APOLOGIES[ErrorCode.TURN_LOST]["en"]
    where = apology(ErrorCode.LLM_UNAVAILABLE, "en", where="example.org, port 80")[0]
    assert "at example.org, port 80." in where


def test_no_service_writes_an_error_code_as_a_string() -> None:
    codes = {code.value for code in ErrorCode}
    found = []
    for path in sorted((ROOT / "services").rglob("*.py")):
        if path.name == "phrases.py" and path.parent.name == "base":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in codes:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert found == [], "use bus.errors.ErrorCode instead"
