"""Reminders: kept with the timers, said when due and shown as a desktop notification on a
real session bus (dbus-daemon and a notification server); a bad one is refused with why."""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bus.endpoints import Endpoints
from bus.messages import ReminderRequest, ReminderSet, SpeakRequest, Spoken
from services.dialogue.intents import notifier
from services.dialogue.intents.timers import MAX_TEXT
from tests.helpers.dbus_session import on_bus, session_bus
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.services.dialogue.harness import Harness, run


@pytest.fixture
def shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The file where the test notification server writes what it showed."""
    record = tmp_path / "notifications.jsonl"
    with session_bus() as address, on_bus(
        address, "tests.helpers.notification_service", str(record)
    ):
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        yield record


def notifications(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


async def remind(h: Harness, at: float, text: str, lang: str | None = None) -> ReminderSet:
    request = ReminderRequest(at=at, text=text, lang=lang)
    h.client.publish(request)
    return await h.next(ReminderSet, lambda r: r.reply_to == request.id)


@pytest.mark.parametrize("lang, said", [
    ("en", "Reminder: call the dentist."),
    ("it", "Promemoria: call the dentist."),
])
def test_a_reminder_is_said_and_shown_when_due_and_then_forgotten(
    module_broker: Endpoints, llm: ScriptedLLM, tmp_path: Path, shown: Path, lang: str,
    said: str,
) -> None:
    path = tmp_path / "timers.json"

    async def body(h: Harness) -> None:
        h.audio_output_alive()
        answer = await remind(h, time.time() + 1.5, "call the dentist.", lang)
        assert answer.problem == "" and answer.reminder
        kept = json.loads(path.read_text())
        assert [(t["id"], t["text"], t["lang"]) for t in kept] == [
            (answer.reminder, "call the dentist.", lang)
        ]
        assert notifications(shown) == []  # not before it is due
        ring = await h.next(SpeakRequest, lambda s: s.kind == "announce")
        assert ring.text == said
        assert notifications(shown) == [{
            "app": "desktop-assistant", "summary": "Reminder" if lang == "en" else "Promemoria",
            "body": "call the dentist.", "urgency": 1, "timeout": 0,
        }]
        assert json.loads(path.read_text()) != []  # kept until it has been played
        h.client.publish(Spoken(text=ring.text, lang=lang, turn=ring.turn))
        await until(lambda: json.loads(path.read_text()) == [], "the reminder forgotten")

    run(module_broker, llm, body, state=tmp_path)


@pytest.mark.parametrize("at_from_now, text, problem", [
    (-600, "water the plants", "its time is in the past"),
    (60, "   ", "it has no words: say what to be reminded of"),
    (60, "x" * (MAX_TEXT + 1), f"more than {MAX_TEXT}"),
    (math.nan, "water the plants", "its time is not a number"),
    (1e9, "water the plants", "days away"),
])
def test_a_reminder_that_cannot_be_kept_is_refused_with_why_and_nothing_is_saved(
    module_broker: Endpoints, llm: ScriptedLLM, tmp_path: Path, at_from_now: float,
    text: str, problem: str,
) -> None:
    async def body(h: Harness) -> None:
        answer = await remind(h, time.time() + at_from_now, text)
        assert answer.reminder == "" and problem in answer.problem
        assert h.service.local.timers.counting() == []

    run(module_broker, llm, body, state=tmp_path)
    assert not (tmp_path / "timers.json").exists()


def test_timers_are_cancelled_and_counted_apart_from_reminders(
    module_broker: Endpoints, llm: ScriptedLLM, tmp_path: Path
) -> None:
    async def body(h: Harness) -> None:
        assert (await remind(h, time.time() + 3600, "stretch")).reminder
        assert (await h.ask("how much time is left")).reply.text == "There is no timer."
        assert (await h.ask("set a timer for 5 minutes")).reply.error is None
        assert (await h.ask("cancel the timer")).reply.text.startswith("Timer cancelled")
        kept = json.loads((tmp_path / "timers.json").read_text())
        assert [t["text"] for t in kept] == ["stretch"]

    run(module_broker, llm, body, intents="prefer", state=tmp_path)
    assert llm.requests == []


def test_without_a_notification_server_the_reminder_is_still_said(
    module_broker: Endpoints, llm: ScriptedLLM, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path}/no-bus")

    async def body(h: Harness) -> None:
        h.audio_output_alive()
        for words in ("first", "second"):
            await remind(h, time.time() + 0.5, words)
            ring = await h.next(SpeakRequest, lambda s: s.kind == "announce")
            assert ring.text == f"Reminder: {words}."
            h.client.publish(Spoken(text=ring.text, lang="en", turn=ring.turn))

    with caplog.at_level(logging.WARNING, logger=notifier.__name__):
        run(module_broker, llm, body, state=tmp_path)
    warned = [r.getMessage() for r in caplog.records if r.name == notifier.__name__]
    assert len(warned) == 1 and "it is spoken only" in warned[0], warned


def test_a_reminders_words_are_shown_as_text_never_as_markup(
    module_broker: Endpoints, llm: ScriptedLLM, tmp_path: Path, shown: Path
) -> None:
    """Notification servers show links and images in a body's markup; the words may come
    from a hostile calendar invite through a tool."""
    words = 'read <a href="https://example.com/x">this</a> & <img src="/etc/x">'

    async def body(h: Harness) -> None:
        h.audio_output_alive()
        assert (await remind(h, time.time() + 0.5, words)).reminder
        await h.next(SpeakRequest, lambda s: s.kind == "announce")
        await until(lambda: notifications(shown) != [], "the notification shown")
        (shown_one,) = notifications(shown)
        assert shown_one["body"] == (
            'read &lt;a href="https://example.com/x"&gt;this&lt;/a&gt; &amp; '
            '&lt;img src="/etc/x"&gt;'
        )

    run(module_broker, llm, body, state=tmp_path)
