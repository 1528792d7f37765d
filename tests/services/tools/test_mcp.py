"""MCP servers as tools: the real ``python -m services.tools`` with the real
``mcp-server-time`` and a small SDK server (tests/helpers/mcp_test_server.py), over
stdio and streamable HTTP, on a real broker."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bus.client import Bus, RequestTimeout
from bus.messages import Heartbeat, ToolCatalog, ToolCatalogRequest, ToolRequest, ToolResult
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.heartbeat import request, wait_ready
from tests.helpers.ports import free_port
from tests.helpers.processes import ROOT, Process

SERVER = ROOT / "tests" / "helpers" / "mcp_test_server.py"
TIME_SERVER = Path(sys.executable).with_name("mcp-server-time")


def server_table(name: str, argv: list[str], extra: str = "") -> str:
    return f"[mcp.{name}]\ncommand = {json.dumps(argv)}\n{extra}"


@pytest.fixture
def tools(config_folder: ConfigFolder, broker: Process, log_dir: Path,
          tmp_path: Path) -> Iterator[Callable[[str], Process]]:
    started: list[Process] = []

    def start(config: str) -> Process:
        config_folder.write(config)
        proc = Process("services.tools", *config_folder.args(), log_dir=log_dir)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


async def catalog_until(bus: Bus, proc: Process, want: Callable[[set[str]], bool],
                        timeout: float = 60) -> dict[str, object]:
    """The catalog once its names satisfy ``want`` (servers come up after the start)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            catalog = await request(bus, ToolCatalogRequest(), ToolCatalog, 30)
        except RequestTimeout:
            raise AssertionError(f"no catalog:\n{proc.output()}") from None
        names = {spec.name for spec in catalog.tools}
        if want(names):
            return {spec.name: spec for spec in catalog.tools}
        await bus.recv(timeout=0.3)
    raise AssertionError(f"catalog never matched within {timeout:g} s\n{proc.output()}")


async def call(bus: Bus, name: str, arguments: dict[str, object], confirmed_by: str = ""
               ) -> ToolResult:
    msg = ToolRequest(name=name, arguments=json.dumps(arguments), turn="t",
                      confirmed_by=confirmed_by, session="s")
    return await request(bus, msg, ToolResult, 30)


def test_servers_tools_join_the_catalog_and_are_called_like_our_own(
    tools: Callable[[str], Process], config_folder: ConfigFolder, log_dir: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    proc = tools(
        server_table("time", [str(TIME_SERVER), "--local-timezone", "Europe/Rome"])
        + server_table("notes", [sys.executable, str(SERVER)],
                       f'env = {{ NOTES = "{notes}" }}\ntrust_read_only = ["touch"]\n')
    )

    async def body(bus: Bus) -> None:
        await wait_ready(bus, proc)
        specs = await catalog_until(bus, proc, lambda names: {
            "time__get_current_time", "notes__lookup"} <= names)
        modifies = {name: spec.modifies for name, spec in specs.items()}  # type: ignore[attr-defined]
        assert modifies == {
            "time__get_current_time": False, "time__convert_time": False,
            "notes__lookup": False, "notes__delete_note": True, "notes__touch": False,
            "notes__hang": False, "notes__crash": False, "notes__huge": False,
        }
        rome = await call(bus, "time__get_current_time", {"timezone": "Europe/Rome"})
        assert rome.ok and "Europe/Rome" in rome.content, rome.content
        found = await call(bus, "notes__lookup", {"word": "kiwi"})
        assert (found.ok, found.content) == (True, "found kiwi")
        refused = await call(bus, "notes__delete_note", {"title": "old"})
        assert not refused.ok and "only after the user's own yes" in refused.content
        assert not notes.exists()
        deleted = await call(bus, "notes__delete_note", {"title": "old"}, confirmed_by="Sì.")
        assert (deleted.ok, deleted.content) == (True, "deleted old")
        assert notes.read_text() == "deleted old\n"
        huge = await call(bus, "notes__huge", {})
        assert huge.ok and len(huge.content) == 2000
        wrong = await call(bus, "time__get_current_time", {"timezone": "Mars/Olympus"})
        assert not wrong.ok and wrong.content.startswith("error: ")

    with_buses(config_folder.endpoints, ["caller"], body)
    (line,) = (log_dir / "state" / "desktop-assistant" / "actions.jsonl").read_text().splitlines()
    assert json.loads(line)["tool"] == "notes__delete_note"


def test_a_server_that_hangs_is_timed_out_and_one_that_dies_comes_back(
    tools: Callable[[str], Process], config_folder: ConfigFolder
) -> None:
    proc = tools(server_table("notes", [sys.executable, str(SERVER)], "timeout = 2\n"))

    async def body(bus: Bus) -> None:
        await wait_ready(bus, proc)
        await catalog_until(bus, proc, lambda names: "notes__crash" in names)
        hung = await call(bus, "notes__hang", {})
        assert hung.content == "error: notes did not answer within 2 s"
        bus.subscribe(Heartbeat.TOPIC, ToolCatalog.TOPIC)
        await bus.wait_connected()
        # Waiting from before the crash: the server is down only until its restart (1 s of
        # backoff). Its tools leave the catalog at once (the service publishes it), and the
        # heartbeat says which server is down (doctor and `ready` see it).
        gone = asyncio.ensure_future(bus.wait_for(
            ToolCatalog, lambda c: not [t for t in c.tools if t.name.startswith("notes__")], 60
        ))
        degraded = asyncio.ensure_future(bus.wait_for(
            Heartbeat, lambda beat: beat.pid == proc.pid and beat.state == "degraded", 60
        ))
        crashed = await call(bus, "notes__crash", {})
        assert not crashed.ok
        await gone
        beat = await degraded
        assert "mcp notes: down (" in beat.detail, beat.detail
        back = await catalog_until(bus, proc, lambda names: "notes__lookup" in names)
        assert "notes__crash" in back
        found = await call(bus, "notes__lookup", {"word": "again"})
        assert found.content == "found again"

    with_buses(config_folder.endpoints, ["caller"], body)


def test_a_server_over_streamable_http(
    tools: Callable[[str], Process], config_folder: ConfigFolder, log_dir: Path
) -> None:
    port = free_port()
    server = Process("tests.helpers.mcp_test_server", "--http", str(port), log_dir=log_dir)
    try:
        proc = tools(f'[mcp.web]\nurl = "http://127.0.0.1:{port}/mcp"\n')

        async def body(bus: Bus) -> None:
            await wait_ready(bus, proc)
            await catalog_until(bus, proc, lambda names: "web__lookup" in names)
            found = await call(bus, "web__lookup", {"word": "remote"})
            assert (found.ok, found.content) == (True, "found remote")

        with_buses(config_folder.endpoints, ["caller"], body)
    finally:
        server.stop()


def test_what_cannot_be_offered_is_left_out_with_the_reason() -> None:
    import mcp_types

    from services.tools.mcp_link import offered
    from settings.schema import McpConfig

    def tool(name: str, schema: dict[str, object], **hints: bool) -> mcp_types.Tool:
        annotations = mcp_types.ToolAnnotations(**hints) if hints else None
        return mcp_types.Tool(name=name, description="d", input_schema=schema,
                              annotations=annotations)

    good = {"type": "object", "properties": {}}
    kept, problems = offered("srv", McpConfig(command=["x"], trust_read_only=["trusted"]), [
        tool("read", good, read_only_hint=True),
        tool("both", good, read_only_hint=True, destructive_hint=True),
        tool("trusted", good),
        tool("bare", good),
        tool("x" * 70, good),
        tool("array", {"type": "array"}),
        tool("vast", {"type": "object", "description": "y" * 20_000}),
        tool("with space", good),
    ])
    assert {name: t.spec.modifies for name, t in kept.items()} == {
        "srv__read": False, "srv__both": True, "srv__trusted": False, "srv__bare": True,
    }
    assert [p.split(": ", 2)[2] for p in problems] == [
        f"'srv__{'x' * 70}' is not a name the model APIs accept (letters, digits, _ and -, "
        "at most 64 with the prefix)",
        "its input schema is not a JSON object schema",
        "its input schema is 20,037 bytes, more than 16,384",
        "'srv__with space' is not a name the model APIs accept (letters, digits, _ and -, "
        "at most 64 with the prefix)",
    ]


def test_the_git_server_reads_freely_and_writes_only_after_a_yes(
    tools: Callable[[str], Process], config_folder: ConfigFolder, tmp_path: Path
) -> None:
    import subprocess

    repo = tmp_path / "scratch"
    repo.mkdir()
    for argv in (["init", "-q"], ["config", "user.name", "Test"],
                 ["config", "user.email", "test@example.invalid"]):
        subprocess.run(["git", *argv], cwd=repo, check=True, timeout=30)
    (repo / "todo.txt").write_text("buy milk\n")
    git_server = Path(sys.executable).with_name("mcp-server-git")
    proc = tools(server_table("git", [str(git_server), "--repository", str(repo)]))

    async def body(bus: Bus) -> None:
        await wait_ready(bus, proc)
        specs = await catalog_until(bus, proc, lambda names: "git__git_commit" in names)
        assert not specs["git__git_status"].modifies  # type: ignore[attr-defined]
        assert specs["git__git_add"].modifies and specs["git__git_commit"].modifies  # type: ignore[attr-defined]
        status = await call(bus, "git__git_status", {"repo_path": str(repo)})
        assert status.ok and "todo.txt" in status.content, status.content
        unasked = await call(bus, "git__git_add", {"repo_path": str(repo), "files": ["todo.txt"]})
        assert not unasked.ok
        added = await call(bus, "git__git_add", {"repo_path": str(repo), "files": ["todo.txt"]},
                           confirmed_by="Yes.")
        assert added.ok, added.content
        committed = await call(bus, "git__git_commit", {"repo_path": str(repo),
                                                        "message": "Add the list"},
                               confirmed_by="Yes, commit it.")
        assert committed.ok, committed.content

    with_buses(config_folder.endpoints, ["caller"], body)
    log = subprocess.run(["git", "log", "--format=%s"], cwd=repo, capture_output=True,
                         text=True, check=True, timeout=30)
    assert log.stdout == "Add the list\n"
