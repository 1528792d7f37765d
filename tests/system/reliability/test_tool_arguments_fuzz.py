"""Tool arguments from the model, fuzzed: each value is one argument, or the call is an error.

Hypothesis writes the model's ``arguments`` text: JSON objects with
injection-shaped strings, NUL bytes, megabyte strings, every JSON type in every
parameter, extra and missing keys, and text that is not a JSON object at all.
A real sandboxed process prints the argv it got; it must be exactly the tool
file's command with each ``{param}`` replaced by its value's text, or the
result must be ``error: ...``. Nothing else, and never a crash of the runner.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.tools.arguments import as_text
from tests.services.tools.helpers import ARGV_PRINTER, make_runner, write_program, write_tool

EXAMPLES = 250
COMMAND = ["argv.py", "{text}", "--n={count}", "{flag}{ratio}", "literal {text}"]
PARAMS = {"text": "string", "count": "integer", "flag": "boolean", "ratio": "number"}
OUTCOMES: Counter[str] = Counter()

INJECTIONS = [
    "; rm -rf ~", "$(id)", "`id`", "| cat /etc/passwd", "&& reboot", "--help", "-rf", "\n--x",
    "{count}", "{text}", "\\", "'\"", "../../../etc/passwd", "%s%n", "${HOME}", "*", "~",
    "\u202e", "\ud7ff", "a\tb\rc", " ", "",
]
strings = st.one_of(
    st.sampled_from(INJECTIONS),
    st.text(max_size=50),
    st.text(max_size=5).map(lambda t: t + "\0" + t),
    st.integers(0, 1).map(lambda big: "x" * (1_000_000 if big else 131_072)),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | strings,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                  max_size=3),
    max_leaves=6,
)
objects = st.fixed_dictionaries(
    {}, optional={name: json_values for name in [*PARAMS, "extra", "__proto__"]}
)
arguments = st.one_of(
    objects.map(json.dumps),
    json_values.map(json.dumps),  # not an object: refused
    st.text(max_size=40),  # not JSON: refused
    st.integers(1, 3000).map(lambda n: '{"text": ' + "[" * n + "]" * n + "}"),
)


def expected_argv(values: dict[str, Any]) -> list[str]:
    def fill(part: str) -> str:
        for name in PARAMS:
            part = part.replace("{" + name + "}", "\x01" + name + "\x02")
        for name in PARAMS:
            part = part.replace("\x01" + name + "\x02", as_text(values.get(name)))
        return part

    return [fill(part) for part in COMMAND[1:]]


def test_fuzzed_arguments_are_one_argument_each_or_an_error(tmp_path: Path) -> None:
    write_program(tmp_path, "argv.py", ARGV_PRINTER)
    write_tool(tmp_path, "echo", COMMAND, params=PARAMS, extra="timeout = 20")
    runner = make_runner(tmp_path, output_bytes=4_000_000)

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(arguments)
    def run(text: str) -> None:
        outcome = asyncio.run(runner.run("echo", text))
        if not outcome.ok:
            OUTCOMES["refused"] += 1
            assert outcome.content.startswith("error: ") and len(outcome.content) <= 2000
            return
        OUTCOMES["passed"] += 1
        values = json.loads(text) if text.strip() else {}
        want = json.dumps(expected_argv(values))
        if len(want) > 2000:  # the model gets 2,000 characters: compare what it got (the
            # output is stripped, then cut: a cut that ends on a space keeps it)
            assert outcome.content == want[:2000]
        else:
            assert outcome.content == want

    run()
    print(f"\ntool arguments tried: {dict(OUTCOMES)}")
    assert OUTCOMES["passed"] and OUTCOMES["refused"]


def test_a_cut_that_ends_on_a_space_keeps_it(tmp_path: Path) -> None:
    """What hypothesis once drew (the fuzz above compared a stripped cut): the output is
    stripped whole, then cut to 2,000 characters, so a cut after a space ends with it."""
    write_program(tmp_path, "argv.py", ARGV_PRINTER)
    write_tool(tmp_path, "echo", ["argv.py", "{a}"], params={"a": "string"})
    value = "x" * 1997 + " " + "y" * 10  # '["' then the value: its space is character 2,000
    outcome = asyncio.run(make_runner(tmp_path).run("echo", json.dumps({"a": value})))
    assert outcome.ok and outcome.content == json.dumps([value])[:2000]
    assert outcome.content.endswith("x ")
