"""``python -m services.tools`` as a real process on a real broker."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bus.client import Bus
from bus.messages import ToolCatalog, ToolCatalogRequest, ToolRequest, ToolResult, ToolSpec
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.heartbeat import request, wait_ready
from tests.helpers.polling import until
from tests.helpers.processes import Process
from tests.services.tools.helpers import ARGV_PRINTER, write_program, write_tool

Start = Callable[..., Process]


@pytest.fixture
def start_tools(config_folder: ConfigFolder, broker: Process, log_dir: Path) -> Iterator[Start]:
    started: list[Process] = []

    def start() -> Process:
        proc = Process("services.tools", *config_folder.args(), log_dir=log_dir)
        started.append(proc)

        async def body(bus: Bus) -> None:
            await wait_ready(bus, proc)

        with_buses(config_folder.endpoints, ["waiter"], body)
        return proc

    yield start
    for proc in started:
        proc.stop()


async def call(bus: Bus, name: str, arguments: str, call_id: str, turn: str = "t1") -> ToolResult:
    return await request(
        bus,
        ToolRequest(id=call_id, name=name, arguments=arguments, turn=turn),
        ToolResult,
        timeout=30,
    )


def test_catalog_at_start_periodically_and_on_request(
    config_folder: ConfigFolder, broker: Process, log_dir: Path
) -> None:
    config_folder.write("[tools]\ncatalog_interval = 0.3\n")
    write_tool(
        config_folder.path,
        "weather",
        ["weather.sh", "{place}", "{when}"],
        params={"place": "string", "when": "string"},
        extra='timeout = 7\nannounce.en = ["Checking the weather."]',
    )
    write_tool(config_folder.path, "now", ["date"])

    async def body(listener: Bus) -> None:
        listener.subscribe(ToolCatalog.TOPIC)
        await listener.wait_connected()
        proc = Process("services.tools", *config_folder.args(), log_dir=log_dir)
        try:
            first = await listener.recv(timeout=30)  # the start-up catalog, unasked
            assert isinstance(first, ToolCatalog), proc.output()
            second = await listener.recv(timeout=5)  # and again after catalog_interval
            assert isinstance(second, ToolCatalog) and second.tools == first.tools
            answer = await listener.request(ToolCatalogRequest(), ToolCatalog, 5)
            assert answer.tools == first.tools
        finally:
            proc.stop()
        assert first.tools == [
            ToolSpec(name="now", description="test tool now", timeout=10.0),
            ToolSpec(
                name="weather",
                description="test tool weather",
                parameters={
                    "type": "object",
                    "properties": {
                        "place": {"type": "string", "description": "the place"},
                        "when": {"type": "string", "description": "the when"},
                    },
                },
                announce={"en": ["Checking the weather."]},
                timeout=7.0,
            ),
        ]
        assert first.tools[0].parameters == {"type": "object", "properties": {}}

    with_buses(config_folder.endpoints, ["listener"], body)


def test_calls_are_answered_with_the_turn_of_the_call(
    config_folder: ConfigFolder, start_tools: Start
) -> None:
    write_program(config_folder.path, "argv.py", ARGV_PRINTER)
    write_tool(config_folder.path, "echo", ["argv.py", "{text}"], params={"text": "string"})
    write_tool(config_folder.path, "fails", ["sh", "-c", "echo broken >&2; exit 2"])
    start_tools()

    async def body(bus: Bus) -> None:
        ok = await call(bus, "echo", json.dumps({"text": "x; rm -rf ~"}), "c1", turn="turn-9")
        assert (ok.content, ok.ok, ok.turn, ok.name) == ('["x; rm -rf ~"]', True, "turn-9", "echo")
        assert ok.duration > 0
        failed = await call(bus, "fails", "{}", "c2")
        assert (failed.content, failed.ok) == ("error: exit status 2: broken", False)
        unknown = await call(bus, "nope", "{}", "c3")
        assert unknown.content == "error: unknown tool 'nope' (known: echo, fails)"
        bad = await call(bus, "echo", "{text: 1", "c4")
        assert bad.content.startswith("error: arguments are not valid JSON")

    with_buses(config_folder.endpoints, ["dialogue"], body)


def test_calls_that_arrive_together_run_concurrently(
    config_folder: ConfigFolder, start_tools: Start, tmp_path: Path
) -> None:
    """Each call waits for a file only the other call writes: run one after the other, both
    would time out."""
    meet = tmp_path / "meet"
    script = (
        f"touch {meet}.$1; i=0; while [ ! -e {meet}.$2 ]; do "
        "i=$((i+1)); [ $i -gt 400 ] && exit 9; sleep 0.02; done; echo met $2"
    )
    write_tool(
        config_folder.path,
        "meet",
        ["sh", "-c", script, "meet", "{me}", "{other}"],
        params={"me": "string", "other": "string"},
        extra="timeout = 20",
    )
    start_tools()

    async def body(bus: Bus) -> None:
        a, b = await asyncio.gather(
            call(bus, "meet", '{"me": "a", "other": "b"}', "ca"),
            call(bus, "meet", '{"me": "b", "other": "a"}', "cb"),
        )
        assert (a.content, b.content) == ("met b", "met a")

    with_buses(config_folder.endpoints, ["dialogue"], body)


def held_until(release: Path, runs: Path, then: str) -> str:
    """A shell script that notes its run in ``runs``, waits (at most 60 s) for ``release``
    to exist, then runs ``then``."""
    return (
        f"echo run >> {runs}; i=0; while [ ! -e {release} ]; do "
        f"i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.02; done; {then}"
    )


def test_a_repeated_call_id_runs_once(
    config_folder: ConfigFolder, start_tools: Start, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    release = tmp_path / "release"
    script = held_until(release, runs, "date +%s%N")
    write_tool(config_folder.path, "counted", ["sh", "-c", script], extra="timeout = 30")
    proc = start_tools()

    async def next_result(bus: Bus) -> ToolResult:
        got = await bus.recv(timeout=30)
        assert isinstance(got, ToolResult)
        return got

    async def body(bus: Bus) -> None:
        bus.subscribe(ToolResult.TOPIC)
        await bus.wait_connected()
        msg = ToolRequest(id="same", name="counted", arguments="{}", turn="t1")
        bus.publish(msg)
        await until(runs.exists, "the first run started", timeout=30)
        bus.publish(msg)  # the same call again while the first run is still going
        repeat_seen = "call same of counted repeated"
        await until(lambda: repeat_seen in proc.output(), "the repeat seen", timeout=30)
        release.touch()
        results = [await next_result(bus), await next_result(bus)]
        bus.publish(msg)  # and once more after it was answered
        results.append(await next_result(bus))
        assert [r.content for r in results] == [results[0].content] * 3
        assert all(r.ok and r.reply_to == "same" and r.turn == "t1" for r in results)
        # the same call id in another turn is another call
        again = await call(bus, "counted", "{}", "same", turn="t2")
        assert again.content != results[0].content

    with_buses(config_folder.endpoints, ["dialogue"], body)
    assert runs.read_text().count("run") == 2


BAD_PARAM = 'description = "x"\ncommand = ["date"]\n[params.p]\ntype = "text"\ndescription = "d"\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('description = "x"\ncommand = ["date"]\ncolour = 1\n', "top level, unknown key 'colour'"),
        ('command = ["date"]\n', "top level, missing required key 'description'"),
        (
            'description = "x"\ncommand = "date"\n',
            "top level, key 'command': expected a valid list",
        ),
        ('description = "x"\ncommand = ["date"\n', "invalid TOML"),
        (BAD_PARAM, "[params.p] key 'type': expected 'string', 'integer', 'number' or 'boolean'"),
    ],
)
def test_bad_tool_files_stop_the_start(
    config_folder: ConfigFolder, log_dir: Path, text: str, expected: str
) -> None:
    write_tool(config_folder.path, "good", ["date"])
    bad = config_folder.path / "tools" / "bad.toml"
    bad.write_text(text)
    proc = Process("services.tools", *config_folder.args(), log_dir=log_dir)
    try:
        code = proc.popen.wait(30)
        output = proc.output()
    finally:
        proc.stop()
    assert code == 2
    assert f"{bad}: {expected}" in output


def test_missing_tools_folder_means_no_tools(
    config_folder: ConfigFolder, start_tools: Start
) -> None:
    (config_folder.path / "tools").rmdir()
    start_tools()

    async def body(bus: Bus) -> None:
        catalog = await request(bus, ToolCatalogRequest(), ToolCatalog, 10)
        assert catalog.tools == []
        result = await call(bus, "now", "{}", "c1")
        assert result.content == "error: unknown tool 'now' (known: none)"

    with_buses(config_folder.endpoints, ["dialogue"], body)


def test_env_table_reaches_tools_run_by_the_service(
    config_folder: ConfigFolder, start_tools: Start
) -> None:
    # not secret by its name: the config marks it so, and the service must hide it
    config_folder.write(
        '[tools]\nsecret_env = ["SEARXNG_URL"]\n[env]\nSEARXNG_URL = "http://search.example:8888"\n'
    )
    write_tool(config_folder.path, "show", ["sh", "-c", 'echo "$SEARXNG_URL"'])
    start_tools()

    async def body(bus: Bus) -> None:
        result = await call(bus, "show", "", "c1")
        assert result.content == "[env SEARXNG_URL]"  # the value, never shown on the bus

    with_buses(config_folder.endpoints, ["dialogue"], body)


def test_stopping_the_service_kills_running_tools(
    config_folder: ConfigFolder, start_tools: Start, tmp_path: Path
) -> None:
    from tests.services.tools.helpers import read_pid, wait_dead

    pidfile = tmp_path / "tool.pid"
    write_tool(
        config_folder.path,
        "long",
        ["sh", "-c", f"echo $$ > {pidfile}; sleep 300"],
        extra="timeout = 120",
    )
    proc = start_tools()

    async def body(bus: Bus) -> None:
        bus.publish(ToolRequest(name="long", arguments="{}"))
        pid = await asyncio.to_thread(read_pid, pidfile)
        assert proc.stop() == 0
        assert wait_dead(pid)

    with_buses(config_folder.endpoints, ["dialogue"], body)


def test_a_flood_from_one_caller_leaves_another_served(
    config_folder: ConfigFolder, start_tools: Start, tmp_path: Path
) -> None:
    """3,000 calls from one peer, each held until released, and then one call of another
    peer: once the flood's calls hold their share of the slots, the other call runs at once
    and the flood's calls past the per-caller queue are refused, not queued."""
    started = tmp_path / "started"
    release = tmp_path / "release"
    script = held_until(release, started, "echo held")
    write_tool(config_folder.path, "held", ["sh", "-c", script], extra="timeout = 90")
    write_tool(config_folder.path, "quick", ["echo", "quick"])
    start_tools()
    flood = 3000

    async def body(flooder: Bus, dialogue: Bus) -> None:
        flooder.subscribe(ToolResult.TOPIC)
        await flooder.wait_connected()
        for n in range(flood):
            flooder.publish(ToolRequest(id=f"f{n}", name="held", arguments="{}", turn="flood"))
        refused = []
        while len(refused) < flood - 32:  # the rest are refused at once
            got = await flooder.recv(timeout=30)
            assert isinstance(got, ToolResult) and not got.ok, got
            refused.append(got.content)
        assert set(refused) == {
            "error: too many calls of flooder are waiting (32); this one was refused"
        }
        await until(
            lambda: started.exists() and len(started.read_text().split()) == 4,
            "the flood holds its share of the slots",
            timeout=30,
        )
        answer = await call(dialogue, "quick", "{}", "mine", turn="t1")
        assert answer.content == "quick"
        assert len(started.read_text().split()) == 4  # the flood still held
        release.touch()
        held = []
        while len(held) < 32:
            got = await flooder.recv(timeout=60)
            if isinstance(got, ToolResult) and got.turn == "flood":
                held.append(got.content)
        assert held == ["held"] * 32

    with_buses(config_folder.endpoints, ["flooder", "dialogue"], body)


def test_a_tool_that_modifies_needs_the_callers_yes_and_is_logged(
    config_folder: ConfigFolder, start_tools: Start, log_dir: Path, tmp_path: Path
) -> None:
    write_program(config_folder.path, "argv.py", ARGV_PRINTER)
    write_tool(config_folder.path, "send", ["argv.py", "{text}"], params={"text": "string"},
               extra="modifies = true")
    start_tools()

    async def body(bus: Bus) -> None:
        refused = await call(bus, "send", json.dumps({"text": "hi"}), "c1")
        assert not refused.ok and "only after the user's own yes" in refused.content
        allowed = await request(
            bus, ToolRequest(id="c2", name="send", arguments=json.dumps({"text": "hi"}),
                             turn="t1", session="local", confirmed_by="Yes."),
            ToolResult, timeout=30,
        )
        assert (allowed.ok, allowed.content) == (True, '["hi"]')

    with_buses(config_folder.endpoints, ["caller"], body)
    (line,) = (log_dir / "state" / "desktop-assistant" / "actions.jsonl").read_text().splitlines()
    assert json.loads(line) | {"when": ""} == {
        "tool": "send", "arguments": {"text": "hi"}, "confirmed_by": "Yes.", "ok": True,
        "result": '["hi"]', "session": "local", "when": "",
    }
