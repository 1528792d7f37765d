"""The tool catalog entry is one typed struct of the contract, :class:`ToolSpec`: built from
a tool file, carried by :class:`ToolCatalog` and checked when the catalog is decoded."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from bus.client import Bus
from bus.messages import ToolCatalog, ToolSpec
from bus.registry import DecodeError, decode
from settings.toolfiles import parse_tool
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process

CLOCK = '''description = "The time now."
command = ["date", "+%H:%M"]
timeout = 2.5
announce = { en = ["Let me look."], ja = ["確認します。"] }

[params.zone]
type = "string"
description = "A time zone"
'''


def clock_entry(folder: Path) -> ToolSpec:
    path = folder / "tools" / "clock.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CLOCK)
    return ToolSpec(**parse_tool(path).catalog_entry())


def test_a_tool_file_becomes_a_catalog_entry_that_crosses_the_broker_intact(
    broker: Process, config_folder: ConfigFolder, tmp_path: Path
) -> None:
    entry = clock_entry(tmp_path)

    async def body(tools: Bus, dialogue: Bus) -> ToolCatalog:
        dialogue.subscribe(ToolCatalog.TOPIC)
        await dialogue.wait_path(tools)
        tools.publish(ToolCatalog(tools=[entry, ToolSpec(name="bare")]))
        got = await dialogue.recv(timeout=5)
        assert isinstance(got, ToolCatalog)
        return got

    catalog = with_buses(config_folder.endpoints, ["tools", "dialogue"], body)
    clock, bare = catalog.tools
    assert isinstance(clock, ToolSpec) and clock == entry
    assert (clock.timeout, clock.announce["ja"]) == (2.5, ["確認します。"])
    zone = {"type": "string", "description": "A time zone"}
    assert clock.parameters["properties"]["zone"] == zone
    assert bare.parameters == {"type": "object", "properties": {}} and bare.timeout == 10.0


def catalog_of(*entries: dict[str, object]) -> list[bytes]:
    return [b"tools.catalog", msgpack.packb({"tools": list(entries)}, use_bin_type=True)]


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"name": "no spaces please"}, "is not a valid tool name"),
        ({"name": "x", "timeout": 0}, "timeout must be positive"),
        ({"name": "x", "timeout": True}, "field 'tools'"),
        ({"name": "x", "announce": {"en": ["  "]}}, "announce.en[0] is blank"),
        ({"name": "x", "modifies": True, "confirm": {"en": " "}}, "confirm.en is blank"),
        ({"name": "adjust_volume"}, "the name of a built-in tool"),
        ({"name": "x", "announce": {"en": "One moment."}}, "field 'tools'"),
        ({"name": "x", "parameters": {"properties": {1: "a"}}}, "a map key"),
        ({"description": "no name"}, "name"),
    ],
)
def test_a_bad_entry_makes_the_catalog_invalid_with_the_reason(
    entry: dict[str, object], reason: str
) -> None:
    with pytest.raises(DecodeError) as info:
        decode(catalog_of({"name": "good"}, entry))
    assert reason in info.value.reason


def test_the_free_form_parameters_are_checked_like_any_free_form_field() -> None:
    deep: dict[str, object] = {}
    for _ in range(40):
        deep = {"a": deep}
    with pytest.raises(DecodeError, match="nested too deeply"):
        decode(catalog_of({"name": "x", "parameters": deep}))
