"""Substitution as a property: any value becomes exactly its text, inside one element."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.tools.arguments import as_text, substitute
from tests.services.tools.helpers import ARGV_PRINTER, make_runner, write_program, write_tool

TEXT = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)))
JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT)


@given(a=TEXT, b=TEXT)
def test_each_value_lands_in_its_own_element(a: str, b: str) -> None:
    argv = substitute(["prog", "{a}", "x{b}y{a}", "{b}"], ["a", "b"], {"a": a, "b": b})
    assert argv == ["prog", a, f"x{b}y{a}", b]


@given(value=JSON_VALUES)
def test_json_values_have_one_spelling(value: object) -> None:
    (text,) = substitute(["{v}"], ["v"], {"v": value})
    assert text == as_text(value)
    if isinstance(value, str):
        assert text == value
    elif value is None:
        assert text == ""
    else:
        assert json.loads(text) == value


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=TEXT)
def test_a_real_process_receives_the_value_untouched(tmp_path: Path, value: str) -> None:
    write_program(tmp_path, "argv.py", ARGV_PRINTER)
    write_tool(tmp_path, "echo", ["argv.py", "{v}", "after"], params={"v": "string"})
    outcome = asyncio.run(make_runner(tmp_path).run("echo", json.dumps({"v": value})))
    assert json.loads(outcome.content) == [value, "after"]
