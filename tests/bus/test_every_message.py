"""Every registered type, with values drawn from its own field types, crosses the wire
intact and never breaks a reader of the whole bus: the tap (text and JSON) and the fold
of a turn's messages.

``test_registry.py`` round-trips one fixed sample per type; this draws many, from the
annotations, so a new type or field is covered without a hand-written sample (a nested
``ToolSpec`` killed ``tap --json`` on the first catalog: issue 26).
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bus.messages  # noqa: F401  (fills the registry)
from bus.checks import check_free_form
from bus.message import SCHEMA_VERSION, Message
from bus.messages import ToolSpec
from bus.registry import _checked_decode, decode, encode, registered
from bus.tap import format_line, to_json
from bus.trace import TurnFold, as_dict, as_line
from bus.turns import Timeline
from settings.toolrules import BUILT_IN, TOOL_NAME

TYPES = list(registered().values())

INTS = st.integers(min_value=-(2**63), max_value=2**64 - 1)
"""What msgpack can carry: a larger int cannot be sent at all."""
PLAIN: dict[Any, st.SearchStrategy[Any]] = {
    str: st.text(max_size=20),
    bytes: st.binary(max_size=64),
    bool: st.booleans(),
    int: INTS,
    float: st.floats(),  # NaN and infinities too: msgpack carries them, so a sender may
    type(None): st.none(),
}
FREE_FORM = st.recursive(
    st.none() | st.booleans() | INTS | st.floats() | st.text(max_size=10) | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8,
)
"""An ``Any`` field: what ``bus.checks.check_free_form`` lets through (JSON plus bytes)."""

RULES: dict[tuple[type, str], st.SearchStrategy[Any]] = {
    # Only newer versions are refused (a receiver reads its own and older ones).
    (Message, "v"): st.integers(min_value=-(2**63), max_value=SCHEMA_VERSION),
    # What ToolSpec.__post_init__ refuses (settings.toolrules): drawn valid, not filtered,
    # as a random name would almost never be one.
    (ToolSpec, "name"): st.from_regex(TOOL_NAME, fullmatch=True).filter(
        lambda name: name not in BUILT_IN
    ),
    (ToolSpec, "timeout"): st.floats(min_value=0, exclude_min=True) | st.just(math.nan),
    (ToolSpec, "confirm"): st.dictionaries(
        st.text(max_size=5), st.text(max_size=10).filter(str.strip), max_size=2
    ),
    (ToolSpec, "announce"): st.dictionaries(
        st.text(max_size=5),
        st.lists(st.text(max_size=10).filter(str.strip), max_size=2),
        max_size=2,
    ),
}
"""Fields whose checks go beyond their type."""


def strategy(hint: Any, owner: type | None = None, name: str = "") -> st.SearchStrategy[Any]:
    """Values of ``hint`` (a field ``name`` of ``owner``): every form ``bus.registry``
    accepts. An unknown form fails here, so a new kind of field gets a strategy."""
    for cls in owner.__mro__ if owner else ():
        if (cls, name) in RULES:
            return RULES[cls, name]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return FREE_FORM
    if hint in PLAIN:
        return PLAIN[hint]
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([strategy(arg) for arg in args])
    if origin is list:
        return st.lists(strategy(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(strategy(args[0]), strategy(args[1]), max_size=3)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return instances(hint)
    raise TypeError(f"{owner}.{name}: no strategy for {hint!r}")


def instances(cls: type) -> st.SearchStrategy[Any]:
    """``cls`` built from a value for each of its fields (a nested dataclass the same way)."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: strategy(hints[f.name], cls, f.name) for f in dataclasses.fields(cls)}
    return st.builds(cls, **fields)


def valid(msg: Message) -> bool:
    """The registry's own check of free-form data (not nested deeper than it allows)."""
    try:
        for f in dataclasses.fields(msg):
            check_free_form(getattr(msg, f.name))
    except ValueError:
        return False
    return True


MESSAGES = {cls: instances(cls).filter(valid) for cls in TYPES}
ANY_MESSAGE = st.one_of(list(MESSAGES.values()))


@pytest.mark.parametrize("cls", TYPES, ids=lambda cls: cls.TOPIC)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_message_crosses_the_wire_and_every_reader_of_the_bus_takes_it(
    cls: type[Message], data: st.DataObject
) -> None:
    msg = data.draw(MESSAGES[cls], label="msg")
    frames: list[bytes | memoryview] = [*encode(msg)]
    back = decode(frames)
    # repr: == field by field, but a NaN equals itself (and 0.0 is not -0.0, 1 not 1.0).
    assert type(back) is cls and repr(back) == repr(msg)
    assert repr(_checked_decode(frames)) == repr(back)  # the long way agrees

    assert isinstance(format_line(back), str)
    record = json.loads(json.dumps(to_json(back), ensure_ascii=False))
    assert record["topic"] == cls.TOPIC
    assert set(record) == {"topic", *(f.name for f in dataclasses.fields(cls))}

    # The fold reads any message of a turn, in any order, with any other.
    others = data.draw(st.lists(ANY_MESSAGE, max_size=3), label="others")
    turn = data.draw(st.permutations([back, *others]), label="turn")
    timeline = Timeline.of("t", turn)
    assert isinstance(timeline.stages, dict) and isinstance(timeline.complete, bool)
    fold = TurnFold()
    done = [t for m in turn for t in fold.feed(m, 0.0)] + fold.expire(math.inf)
    for finished in done:
        json.dumps(as_dict(finished))
        assert isinstance(as_line(finished), str)
