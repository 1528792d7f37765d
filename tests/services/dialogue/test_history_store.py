"""Conversation history on disk: atomic, bounded, survives a restart, a bad file set aside."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from bus.client import Bus
from bus.messages import Error, Heartbeat, QuestionRequest, Reply
from services.dialogue.history import Sessions
from services.dialogue.history_store import HistoryStore
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.busrun import with_buses
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import Process


def test_a_session_comes_back_from_disk_cut_to_the_window(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history", max_chars=50)
    sessions = Sessions(4, store=store)
    for i in range(5):
        sessions.remember("brain:é/../x", f"question {i}", "a" * 80)
    store.close()
    files = list((tmp_path / "history" / "http").iterdir())
    assert [p.suffix for p in files] == [".json"]  # one file, named by a hash, nothing else
    again = Sessions(4, store=HistoryStore(tmp_path / "history"))
    assert again.messages("brain:é/../x") == [
        {"role": "user", "content": "question 3"},
        {"role": "assistant", "content": "a" * 50},
        {"role": "user", "content": "question 4"},
        {"role": "assistant", "content": "a" * 50},
    ]
    again.clear("brain:é/../x")
    assert again.store is not None
    again.store.close()
    assert list((tmp_path / "history" / "http").iterdir()) == []


def test_the_number_of_files_is_bounded(tmp_path: Path) -> None:
    folder = tmp_path / "history"
    store = HistoryStore(folder, max_files=3)
    for i in range(5):
        store.save(f"brain:s{i}", [("q", "a")]).result()
        os.utime(store.path(f"brain:s{i}"), (1000 + i, 1000 + i))
    store.close()
    HistoryStore(folder, max_files=3).close()  # prunes when it starts
    kept = sorted(store.path(f"brain:s{i}") for i in (2, 3, 4))
    assert sorted((folder / "http").iterdir()) == kept


def test_http_sessions_never_evict_the_voice_and_command_line_sessions(tmp_path: Path) -> None:
    """Before, the cap counted every file: 1,300 HTTP sessions evicted ``local``'s."""
    folder = tmp_path / "history"
    store = HistoryStore(folder, max_files=10)
    own = ["local", "cli", "kitchen"]
    for session in own:
        store.save(session, [("q", "a")]).result()
        os.utime(store.path(session), (1, 1))  # older than every HTTP session
    for i in range(130):  # past the cap, and past a prune every PRUNE_EVERY writes
        store.save(f"brain:client-{i}", [("q", "a")]).result()
    store.close()
    HistoryStore(folder, max_files=10).close()
    assert all(HistoryStore(folder).load(s) == [("q", "a")] for s in own)
    assert len(list((folder / "http").iterdir())) == 10


def test_an_http_session_saved_before_its_own_folder_moves_there(tmp_path: Path) -> None:
    folder = tmp_path / "history"
    store = HistoryStore(folder)
    old = folder / store.path("brain:s").name
    folder.mkdir()
    old.write_text(json.dumps({"v": 1, "session": "brain:s", "exchanges": [["q", "a"]]}))
    assert store.load("brain:s") == [("q", "a")]
    assert not old.exists() and store.path("brain:s").exists()
    store.close()


def test_a_session_forgotten_and_loaded_again_never_repeats_a_version(tmp_path: Path) -> None:
    """A speculative answer is kept only if the history's version is the one it was built
    on: a session that left memory and came back from disk must not match an old one."""
    store = HistoryStore(tmp_path / "history")
    sessions = Sessions(max_messages=10, max_sessions=1, store=store)
    built_on = sessions.version("a")
    sessions.remember("a", "q1", "a1")
    asyncio.run(sessions.saved("a"))
    sessions.version("b")  # "a" is forgotten from memory (max_sessions=1)...
    assert sessions.messages("a")[-1]["content"] == "a1"  # ...and comes back from disk
    seen = {built_on, sessions.version("a")}
    sessions.clear("a")
    seen.add(sessions.version("a"))
    store.close()
    assert len(seen) == 3


def test_every_kind_of_bad_file_is_set_aside_and_reported(tmp_path: Path) -> None:
    folder = tmp_path / "history"
    reported: list[tuple[Path, str, Path]] = []
    store = HistoryStore(folder, on_corrupt=lambda *r: reported.append(r))
    bad = {
        "half": b'{"v": 1, "session": "half", "exchanges": [["q", "a"',
        "binary": b"\xff\xfe\x00garbage",
        "nested": b"[" * 100_000 + b"]" * 100_000,
        "wrong-type": json.dumps({"v": 1, "session": "wrong-type", "exchanges": [[1, 2]]}).encode(),
        "other": json.dumps({"v": 1, "session": "someone else", "exchanges": []}).encode(),
        "huge": b" " * (2 * 1024 * 1024),
    }
    folder.mkdir()
    for session, content in bad.items():
        store.path(session).write_bytes(content)
    for session in bad:
        assert store.load(session) == []
        assert not store.path(session).exists()
    store.close()
    assert len(reported) == len(bad)
    for path, problem, aside in reported:
        assert problem and aside.exists() and aside.name.startswith(path.name + ".corrupt-")
    assert len(list(folder.glob("*.corrupt-*"))) == len(bad)


def test_history_survives_a_killed_dialogue_and_a_bad_file_is_not_a_crash(
    broker: Process, config_folder: ConfigFolder, log_dir: Path
) -> None:
    llm = ScriptedLLM().__enter__()
    config_folder.write(f'llm = "{llm.url}"\n[dialogue]\nmodel = "m"\n')
    state = log_dir / "state"
    dialogue = Process("services.dialogue", *config_folder.args(), log_dir=log_dir)

    async def ask(bus: Bus, session: str, text: str) -> Reply:
        await bus.wait_for(Heartbeat, lambda h: h.service == "dialogue" and h.state == "ready", 30)
        request = QuestionRequest(session=session, text=text)
        return await bus.request(request, Reply, 10)

    async def first(bus: Bus) -> None:
        llm.script(c.text("Hello Ada."))
        assert (await ask(bus, "cli", "My name is Ada.")).text == "Hello Ada."

    async def second(bus: Bus) -> None:
        llm.script(c.text("You are Ada."), c.text("Hi."))
        assert (await ask(bus, "cli", "Who am I?")).text == "You are Ada."
        error, reply = await asyncio.gather(
            bus.wait_for(Error, lambda e: e.code == "history-corrupt", 10),
            ask(bus, "broken", "Hello?"),
        )
        assert reply.text == "Hi." and "set aside" in error.message

    try:
        with_buses(config_folder.endpoints, ["client"], first)
        history = state / "desktop-assistant" / "history"
        assert len(list(history.glob("*.json"))) == 1
        dialogue.kill()  # kill -9: nothing is flushed on the way out
        broken = HistoryStore(history).path("broken")
        broken.write_text('{"v": 1, "session": "broken", "exch')
        dialogue = Process("services.dialogue", *config_folder.args(), log_dir=log_dir)
        with_buses(config_folder.endpoints, ["client"], second)
    finally:
        dialogue.stop()
        llm.stop()
    who = llm.requests[1]["messages"]
    assert [m["content"] for m in who[1:]] == ["My name is Ada.", "Hello Ada.", "Who am I?"]
    assert [m["role"] for m in llm.requests[2]["messages"]] == ["system", "user"]
    assert list(history.glob(f"{broken.name}.corrupt-*"))  # kept aside, not lost
