"""Assembling streamed tool calls, and tool calls written as text (Gemma)."""

from __future__ import annotations

import pytest

from services.dialogue.textcalls import may_be_call, parse_text_calls
from services.dialogue.toolcalls import ToolCallAssembler, ToolCallRequest


def assemble(*deltas: list[dict], taken: set[str] | None = None) -> list[tuple[str, str, str]]:
    assembler = ToolCallAssembler(taken if taken is not None else set())
    for delta in deltas:
        assembler.add(delta)
    return [(c.id, c.name, c.arguments) for c in assembler.calls()]


def frag(
    index: int | None = None, id: str | None = None, name: str | None = None, args=None
) -> dict:
    out: dict = {"function": {}}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
    if name is not None:
        out["function"]["name"] = name
    if args is not None:
        out["function"]["arguments"] = args
    return out


def test_llama_fragments_per_index() -> None:
    assert assemble(
        [frag(0, "a", "weather", "")],
        [frag(0, args='{"pla')],
        [frag(0, args='ce": "Rome"}')],
        [frag(1, "b", "now", "")],
        [frag(1, args="{}")],
    ) == [("a", "weather", '{"place": "Rome"}'), ("b", "now", "{}")]


def test_vllm_empty_ids_on_later_fragments() -> None:
    assert assemble([frag(0, "a", "now")], [frag(0, "", args="{")], [frag(0, "", args="}")]) == [
        ("a", "now", "{}")
    ]


def test_interleaved_indexes_in_one_delta() -> None:
    assert assemble(
        [frag(0, "a", "x", "{"), frag(1, "b", "y", "{")], [frag(1, args="}"), frag(0, args="}")]
    ) == [("a", "x", "{}"), ("b", "y", "{}")]


def test_whole_calls_with_the_index_zero_bug_and_no_ids() -> None:
    assert assemble([frag(0, None, "a", '{"x": 1}'), frag(0, None, "b", "{}")]) == [
        ("call_0", "a", '{"x": 1}'),
        ("call_1", "b", "{}"),
    ]


def test_same_index_new_id_is_a_new_call() -> None:
    assert assemble([frag(0, "a", "x", "{")], [frag(0, "b", "y", "{}")]) == [
        ("a", "x", "{"),
        ("b", "y", "{}"),
    ]


def test_a_repeated_name_on_a_fragment_continues_the_call() -> None:
    assert assemble([frag(0, "a", "x", '{"q":')], [frag(0, "a", "x", ' "z"}')]) == [
        ("a", "x", '{"q": "z"}')
    ]


def test_no_index_at_all() -> None:
    assert assemble(
        [frag(None, None, "x", "{")], [frag(None, args="}")], [frag(None, None, "y")]
    ) == [
        ("call_0", "x", "{}"),
        ("call_1", "y", ""),
    ]


def test_arguments_sent_as_an_object() -> None:
    assert assemble([frag(0, "a", "x", {"place": "Rome"})]) == [("a", "x", '{"place": "Rome"}')]


def test_repeated_calls_are_dropped_and_nameless_ones_too() -> None:
    assert assemble(
        [frag(0, "a", "now", "{}"), frag(1, "b", "now", " { } "), frag(2, None, None, "{}")]
    ) == [("a", "now", "{}")]


def test_ids_stay_unique_across_rounds() -> None:
    taken: set[str] = set()
    assert assemble([frag(0, None, "x", "{}")], taken=taken)[0][0] == "call_0"
    assert assemble([frag(0, None, "x", "{}")], taken=taken)[0][0] == "call_0_2"
    assert assemble([frag(0, "call_0", "x", "{}")], taken=taken)[0][0] == "call_0_3"


def test_message_never_carries_broken_arguments() -> None:
    broken = ToolCallRequest(id="a", name="x", arguments='{"a": ')
    assert broken.message()["function"]["arguments"] == "{}"
    with pytest.raises(ValueError, match="not valid JSON"):
        broken.parsed_arguments()
    empty = ToolCallRequest(id="a", name="x", arguments="")
    assert empty.parsed_arguments() == {}
    assert ToolCallRequest(id="a", name="x", arguments='{"é": 1}').message()["function"] == {
        "name": "x",
        "arguments": '{"é": 1}',
    }


KNOWN = {"weather", "now"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"name": "weather", "arguments": {"place": "Rome"}}', [("weather", '{"place": "Rome"}')]),
        ('```json\n{"name": "now", "parameters": {}}\n```', [("now", "{}")]),
        ('<tool_call>{"name": "now", "arguments": "{}"}</tool_call>', [("now", "{}")]),
        (
            '[{"name": "now"}, {"function": {"name": "weather", "arguments": {"place": "X"}}}]',
            [("now", "{}"), ("weather", '{"place": "X"}')],
        ),
        (
            '```tool_code\nprint(default_api.weather(place="Rome"))\n```',
            [("weather", '{"place": "Rome"}')],
        ),
        ("now()", [("now", "{}")]),
        ('weather(place="Oslo")\nnow()', [("weather", '{"place": "Oslo"}'), ("now", "{}")]),
    ],
)
def test_text_calls_recognised(text: str, expected: list[tuple[str, str]]) -> None:
    assert parse_text_calls(text, KNOWN) == expected


@pytest.mark.parametrize(
    "text",
    [
        "It is sunny.",
        '{"name": "rm", "arguments": {}}',  # not an offered tool
        '{"temperature": 20}',
        "weather(place=open('x'))",  # only literals
        'weather("Rome")',  # positional arguments are not a call we can map
        "Yes",
        '<tool_call>{"name": "now"}</tool_call> and then some words',
        "",
        "((((" * 300,
    ],
)
def test_text_that_is_not_a_call(text: str) -> None:
    assert parse_text_calls(text, KNOWN) is None


def test_may_be_call() -> None:
    assert may_be_call('  {"name"') and may_be_call("```") and may_be_call("<tool_call>")
    assert not may_be_call("Sure") and not may_be_call("   ")
