"""Timers survive a restart of the dialogue, and leave the file only once announced; a bad
file or entry costs only itself, and a person's handful of timers is all that is kept."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bus.endpoints import Endpoints
from bus.messages import SpeakRequest, Spoken
from services.dialogue.intents import timers
from services.dialogue.intents.phrases import phrase
from services.dialogue.intents.timers import MAX_TIMERS, Timer, Timers
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.services.dialogue.harness import Harness, run


def test_a_timer_set_before_a_restart_rings_after_it(tmp_path: Path) -> None:
    path = tmp_path / "timers.json"
    now = [1000.0]
    before = Timers(path, ring=_never, clock=lambda: now[0])
    set_it = before.start(120, "it")
    assert [t.id for t in before.counting()] == [set_it.id]

    now[0] += 200  # the dialogue was down while it ended
    rung: list[Timer] = []

    async def ring(timer: Timer) -> None:
        rung.append(timer)
        assert json.loads(path.read_text())  # still saved while its announcement plays
        raise asyncio.CancelledError  # stop the loop once the first one rang

    after = Timers(path, ring=ring, clock=lambda: now[0])
    assert after.counting() == []  # ended: not counting, but not forgotten
    try:
        asyncio.run(after.run())
    except asyncio.CancelledError:
        pass
    assert [(t.id, t.lang, t.seconds) for t in rung] == [(set_it.id, "it", 120)]


def test_cancel_and_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "timers.json"
    timers = Timers(path, ring=_never, clock=lambda: 0.0)
    timers.start(5, "en")
    timers.start(9, "en")
    assert timers.cancel() == 2 and json.loads(path.read_text()) == []
    path.write_text("{not json")
    assert Timers(path, ring=_never).counting() == []  # logged, and starting afresh


async def _never(timer: Timer) -> None:
    raise AssertionError(f"{timer} rang")


def saved(timer_id: str, seconds: float, ends: float, lang: str = "en") -> dict[str, Any]:
    return {"id": timer_id, "seconds": seconds, "ends": ends, "lang": lang}


def bad_entries(now: float) -> list[Any]:
    return [
        saved("soon", 60, "soon"),  # type: ignore[arg-type]
        saved("nan", 60, math.nan),
        saved("infinite", math.inf, now + 60),
        saved("negative", -5, now + 60),
        saved("far", 60, now + 1e300),
        {"id": "missing-ends", "seconds": 60, "lang": "en"},
        saved("not-a-language", 60, now + 60, lang=7),  # type: ignore[arg-type]
        {**saved("long-words", 60, now + 60), "text": "x" * 201},
        "not an object",
        None,
    ]


@pytest.mark.parametrize("bad", ["soon", "nan", "every kind"])
def test_bad_entries_are_dropped_with_a_warning_and_the_good_timer_still_rings(
    module_broker: Endpoints,
    llm: ScriptedLLM,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    bad: str,
) -> None:
    """One entry whose ``ends`` was "soon" or NaN loaded without a word, the dialogue said
    ready, and then no timer rang again, "how much time is left" never got an answer, and
    the bad entry was saved again with each new timer."""
    now = time.time()
    entries = bad_entries(now)
    if bad != "every kind":
        entries = [e for e in entries if isinstance(e, dict) and e.get("id") == bad]
    path = tmp_path / "timers.json"
    path.write_text(json.dumps([saved("good", 2, now + 2), *entries]))

    async def body(h: Harness) -> None:
        h.audio_output_alive()
        left = await h.ask("how much time is left")
        assert left.reply.error is None and left.reply.text.endswith("left."), left.reply.text
        ring = await h.next(SpeakRequest, lambda s: s.kind == "announce")
        assert ring.text == "Your 2 seconds timer is done."
        h.client.publish(Spoken(text=ring.text, lang="en", turn=ring.turn))
        assert (await h.ask("set a timer for 5 minutes")).reply.error is None

        def on_disk() -> list[tuple[float, str]]:
            return [(t["seconds"], t["lang"]) for t in json.loads(path.read_text())]

        await until(lambda: on_disk() == [(300, "en")], "the new timer alone saved")

    with caplog.at_level(logging.WARNING, logger=timers.__name__):
        run(module_broker, llm, body, intents="prefer", state=tmp_path)
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == len(entries), dropped
    if bad != "nan":
        assert f"{path}: dropped entry 2 (soon): ends: Input should be a valid number" in (
            dropped[0]
        )
    assert llm.requests == []


def unblock_readers(fifo: Path, after: float) -> threading.Thread:
    """After ``after`` seconds, an open for writing and a close: a reader that still waits
    on ``fifo`` gets an end of file (so a failing test ends instead of hanging)."""

    def unblock() -> None:
        time.sleep(after)
        with contextlib.suppress(OSError):  # ENXIO: nobody waits to read it, as it should be
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "folder", "2 MB"])
def test_a_timers_file_that_is_no_small_regular_file_is_ignored_and_replaced(
    module_broker: Endpoints,
    llm: ScriptedLLM,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    kind: str,
) -> None:
    """A FIFO kept the dialogue from starting (forever: here, until the test writes to it
    after 5 s), a link to /dev/zero filled the memory until it died: the file is read as
    the tool files are, a regular file of at most 64 KiB or not at all."""
    path = tmp_path / "timers.json"
    if kind == "fifo":
        os.mkfifo(path)
        unblock_readers(path, after=5.0)
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text(json.dumps([saved(f"t{n}", 60, time.time() + 60) for n in range(20_000)]))
    started = time.monotonic()

    async def body(h: Harness) -> None:
        assert time.monotonic() - started < 4.0  # ready, without waiting on the file
        assert (await h.ask("how much time is left")).reply.text == "There is no timer."
        if kind != "folder":  # a folder cannot be replaced by a file: saving it fails, logged
            assert (await h.ask("set a timer for 5 minutes")).reply.error is None
            assert path.is_file() and not path.is_symlink()
            assert [t["seconds"] for t in json.loads(path.read_text())] == [300]

    with caplog.at_level(logging.WARNING, logger=timers.__name__):
        run(module_broker, llm, body, intents="prefer", state=tmp_path)
    warned = " ".join(r.getMessage() for r in caplog.records)
    expected = "larger than 65536 bytes" if kind == "2 MB" else "not a regular file"
    assert f"ignoring the saved timers: {path}: {expected}" in warned


@pytest.mark.parametrize(
    "asked, lang",
    [
        ("set a timer for 5 minutes", "en"),
        ("imposta un timer di 5 minuti", "it"),
        ("5分のタイマーをセットして", "ja"),
    ],
)
def test_past_the_cap_a_new_timer_is_refused_aloud_in_its_language(
    module_broker: Endpoints, llm: ScriptedLLM, tmp_path: Path, asked: str, lang: str
) -> None:
    """Nothing capped the timers, and each new one rewrote the whole file (500 took 8.7 s):
    a person keeps a handful, so past MAX_TIMERS the answer says so and nothing is saved."""
    path = tmp_path / "timers.json"
    now = time.time()
    kept = [saved(f"t{n}", 3600, now + 3600 + n) for n in range(MAX_TIMERS + 10)]
    path.write_text(json.dumps(kept))  # an older file with more: the soonest are kept

    async def body(h: Harness) -> None:
        assert len(h.service.local.timers.counting()) == MAX_TIMERS
        record = await h.ask(asked, lang=lang)
        assert record.reply.text == phrase("too_many_timers", lang, count=MAX_TIMERS)
        assert record.reply.error is None
        assert len(h.service.local.timers.counting()) == MAX_TIMERS

    run(module_broker, llm, body, intents="prefer", state=tmp_path)
    assert json.loads(path.read_text()) == kept  # not written again
    assert llm.requests == []
