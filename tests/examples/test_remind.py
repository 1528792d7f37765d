"""remind.py as the tools service runs it (``tools run``, the Runner's environment): it
reaches the running dialogue through ``desktop-assistant remind``, and when the reminder is
due it is said and shown on a real session bus's notification server."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bus.client import Bus
from bus.messages import Heartbeat, SpeakRequest, Spoken
from services.base.names import SPEAKER
from tests.cli.test_ask import cli, llm, running_dialogue  # noqa: F401 (fixtures)
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.dbus_session import on_bus, session_bus
from tests.helpers.examples import EXAMPLES
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import Process

DUE_IN = 3.0
"""Seconds from setting the reminder to its time: the tool, the CLI and the bus well within."""


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A session bus with a notification server: (address, the file of what it showed)."""
    record = tmp_path / "notifications.jsonl"
    with session_bus() as address, on_bus(
        address, "tests.helpers.notification_service", str(record)
    ):
        yield address, record


@pytest.fixture
def dialogue(
    broker: Process, config_folder: ConfigFolder, llm: ScriptedLLM,  # noqa: F811
    log_dir: Path, desktop: tuple[str, Path],
) -> Iterator[Process]:
    config_folder.write(f'llm = "{llm.url}"\n')
    for name in ("remind.py", "remind.toml"):
        shutil.copy2(EXAMPLES / name, config_folder.path / "tools" / name)
    with running_dialogue(config_folder, log_dir, {"DBUS_SESSION_BUS_ADDRESS": desktop[0]}) as proc:
        yield proc


def remind_tool(folder: ConfigFolder, when: str, text: str) -> tuple[int, str, str]:
    done = cli(folder, "tools", "run", "remind", f"when={when}", f"text={text}")
    return done.returncode, done.stdout, done.stderr + done.stdout


def test_the_tool_sets_a_reminder_that_is_said_and_shown_when_due(
    dialogue: Process, config_folder: ConfigFolder, desktop: tuple[str, Path]
) -> None:
    at = datetime.now() + timedelta(seconds=DUE_IN)
    code, out, err = remind_tool(config_folder, at.isoformat(timespec="seconds"),
                                 "take the bread out of the oven")
    assert code == 0, err
    assert f"reminder set for {at:%Y-%m-%d %H:%M}: take the bread out of the oven" in out

    async def body(speaker: Bus) -> None:
        speaker.subscribe(SpeakRequest.TOPIC)
        await speaker.wait_connected()
        speaker.publish(Heartbeat(service=SPEAKER, pid=1, state="ready", version="test"))
        ring = await speaker.wait_for(SpeakRequest, lambda s: s.kind == "announce", 20)
        assert ring.text == "Reminder: take the bread out of the oven."
        speaker.publish(Spoken(text=ring.text, lang=ring.lang, turn=ring.turn))

    with_buses(config_folder.endpoints, ["speaker"], body)
    record = desktop[1]
    shown = [json.loads(line) for line in record.read_text().splitlines()]
    assert [(n["summary"], n["body"]) for n in shown] == [
        ("Reminder", "take the bread out of the oven")
    ]


def test_a_time_in_the_past_or_no_time_at_all_is_refused_with_why(
    dialogue: Process, config_folder: ConfigFolder
) -> None:
    code, _, err = remind_tool(config_folder, "2020-01-01T09:00", "too late")
    assert code == 1 and "not set: its time is in the past" in err
    code, _, err = remind_tool(config_folder, "at teatime", "tea")
    assert code == 1 and "'at teatime': expected HH:MM" in err


def test_without_the_assistant_running_it_says_so(
    broker: Process, config_folder: ConfigFolder
) -> None:
    shutil.copy2(EXAMPLES / "remind.py", config_folder.path / "tools" / "remind.py")
    shutil.copy2(EXAMPLES / "remind.toml", config_folder.path / "tools" / "remind.toml")
    code, _, err = remind_tool(config_folder, "23:59", "anything")
    assert code != 0 and "no dialogue service answered" in err


def test_when_is_read_as_people_write_it() -> None:
    from desktop_assistant.commands.remind import when_of

    now = datetime(2026, 12, 7, 16, 30).astimezone()
    assert when_of("17:00", now) == now.replace(hour=17, minute=0)
    assert when_of("9:05", now) == (now + timedelta(days=1)).replace(hour=9, minute=5)
    assert when_of("+90s", now) == now + timedelta(seconds=90)
    assert when_of("+2h", now) == now + timedelta(hours=2)
    assert when_of("2026-12-24T09:30", now) == datetime(2026, 12, 24, 9, 30).replace(
        tzinfo=now.tzinfo)
    assert when_of("2026-12-24T09:30+00:00", now).utcoffset() == now.utcoffset()
    for wrong in ("25:00", "12:61", "tomorrow", "+5y", ""):
        with pytest.raises(ValueError):
            when_of(wrong, now)
