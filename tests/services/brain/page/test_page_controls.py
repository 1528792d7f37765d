"""The page's controls of the mic and of the voice conversation, in a real headless Chromium,
against the real assistant's processes and a real mic on the virtual sound card: "Listen
now", the listen mode, and Yes or No to a voice turn's question about a modifying tool.

Every wait is for a bus message or a DOM condition, never for time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from bus.client import Bus
from bus.message import new_id
from bus.messages import (
    Heartbeat,
    ListenClosed,
    ListenModeState,
    ListenRequest,
    Reply,
    ToolRequest,
    Transcript,
)
from services.base.names import LOCAL_SESSION
from tests.helpers import llm_chunks as c
from tests.helpers.browser import press, text_of, wait_until
from tests.helpers.processes import Process
from tests.helpers.soundcard import SoundCard
from tests.services.brain.page.conftest import SEND, PageStack

T = TypeVar("T")
LISTEN = '[listen]\nmode = "push"\ntimeout = 1.0\n'
"""The mode the mic starts in; a short wait for speech, so that an opened mic closes soon."""
ACTION = "Tell the team lunch is at one."
QUESTION = "Send lunch at one to the team?"
"""What the voice turn's modifying tool asks (``SEND``'s ``confirm``)."""


class MicPageStack(PageStack):
    """The page's stack with a mic recording the virtual sound card."""

    def __init__(self, card: SoundCard) -> None:
        super().__init__([SEND], brain=f"\n{LISTEN}")  # the [listen] table after [brain]'s keys
        self.card = card
        config = self.folder.path / "config.toml"
        config.write_text('card = "pulse"\n' + config.read_text())  # top-level: before any table

    def start_mic(self) -> None:
        self.processes["services.mic"] = Process(
            "services.mic", *self.folder.args(), log_dir=self.root, env=self.card.env())

        async def ready(bus: Bus) -> None:
            await bus.wait_for(Heartbeat, lambda h: h.service == "mic" and h.state == "ready",
                               timeout=60)

        on_bus(self, ready)


@pytest.fixture(scope="module")
def stack() -> Iterator[MicPageStack]:
    with SoundCard() as card:
        stack = MicPageStack(card)
        stack.start()
        stack.start_speaker()
        try:
            stack.start_mic()
            yield stack
        finally:
            stack.stop()


def on_bus(stack: PageStack, body: Callable[[Bus], Awaitable[T]]) -> T:
    async def main() -> T:
        async with Bus(stack.folder.endpoints, "test") as bus:
            return await body(bus)

    return asyncio.run(main())


def opened(browser: WebDriver, stack: PageStack, mode: str = "push") -> None:
    """The page loaded, live, showing the mode the mic says it is in."""
    browser.get(f"{stack.url}/")
    wait_until(browser, lambda b: b.find_element(By.ID, "connection").text == "live",
               "the page's event stream is open")
    wait_until(browser, lambda b: text_of(b, "#listen-mode") == mode, f"the mic's mode {mode}")


def mode_radio(mode: str) -> str:
    return f'input[name="listen-mode"][value="{mode}"]'


def choose(browser: WebDriver, mode: str) -> None:
    """Choose ``mode`` with the keyboard: the space bar on its radio button."""
    browser.find_element(By.CSS_SELECTOR, mode_radio(mode)).send_keys(Keys.SPACE)


async def chosen(bus: Bus, browser: WebDriver, mode: str) -> ListenModeState:
    """Choose ``mode`` on the page; the mic's answer (subscribe its topic first)."""
    told = asyncio.ensure_future(
        bus.wait_for(ListenModeState, lambda m: m.mode == mode, timeout=30))
    await asyncio.to_thread(choose, browser, mode)
    return await told


def test_listen_now_opens_the_mic_once(stack: MicPageStack, browser: WebDriver) -> None:
    opened(browser, stack)

    async def body(bus: Bus) -> tuple[ListenRequest, ListenClosed]:
        bus.subscribe(ListenRequest.TOPIC, ListenClosed.TOPIC)
        await bus.wait_connected()
        asked = asyncio.ensure_future(bus.wait_for(ListenRequest, timeout=30))
        closed = asyncio.ensure_future(
            bus.wait_for(ListenClosed, lambda m: m.src == "mic", timeout=30))
        await asyncio.to_thread(press, browser, "#listen", "the Listen now button")
        return await asked, await closed

    request, closed = on_bus(stack, body)
    assert request.src == "brain"  # the page's button, as `desktop-assistant listen`
    # The mic opened: nobody spoke within [listen] timeout, and it says it closed again.
    assert (closed.reason, closed.follow_up) == ("timeout", False)
    wait_until(browser, lambda b: text_of(b, "#listen-state") == "Listening: ask now.",
               "the page saying the mic listens")


def test_the_listen_mode_changes_on_the_page_until_the_mic_restarts(
    stack: MicPageStack, browser: WebDriver
) -> None:
    opened(browser, stack)

    async def body(bus: Bus) -> list[ListenModeState]:
        bus.subscribe(ListenModeState.TOPIC)
        await bus.wait_connected()
        return [await chosen(bus, browser, "always"), await chosen(bus, browser, "wake")]

    always, wake = on_bus(stack, body)
    assert (always.src, always.error) == ("mic", "")
    # The mic started in push mode without a detector: it loaded one now.
    assert (wake.src, wake.error) == ("mic", "")
    wait_until(browser, lambda b: text_of(b, "#listen-mode") == "wake", "the new mode shown")

    # A page loaded afresh asks the mic: the config's push is not what it shows.
    opened(browser, stack, "wake")
    assert browser.find_element(By.CSS_SELECTOR, mode_radio("wake")).is_selected()

    async def back(bus: Bus) -> ListenModeState:
        bus.subscribe(ListenModeState.TOPIC)
        await bus.wait_connected()
        return await chosen(bus, browser, "push")

    assert on_bus(stack, back).error == ""
    wait_until(browser, lambda b: text_of(b, "#listen-mode") == "push", "push again")


def test_always_listening_needs_no_listen_button(stack: MicPageStack, browser: WebDriver) -> None:
    opened(browser, stack)

    async def switch(bus: Bus, mode: str) -> ListenModeState:
        bus.subscribe(ListenModeState.TOPIC)
        await bus.wait_connected()
        return await chosen(bus, browser, mode)

    on_bus(stack, lambda bus: switch(bus, "always"))
    try:
        press(browser, "#listen", "the Listen now button")
        wait_until(browser, lambda b: text_of(b, "#listen-state") ==
                   "The mic is always listening.", "the page saying no button is needed")
    finally:
        on_bus(stack, lambda bus: switch(bus, "push"))


async def voice_question(bus: Bus, stack: PageStack) -> Reply:
    """The user asks by voice for an action; the dialogue's question about it."""
    stack.llm.reset()  # what an earlier test's No left unasked goes
    stack.llm.script(c.tool_calls([c.call("send_note", text="lunch at one")]),
                     c.text("Sent it."))
    turn = new_id()
    replied = asyncio.ensure_future(bus.wait_for(Reply, lambda r: r.turn == turn, timeout=60))
    bus.publish(Transcript(text=ACTION, lang="en", turn=turn, speech_end=time.time() - 0.3))
    reply = await replied
    assert (reply.session, reply.confirmation) == (LOCAL_SESSION, QUESTION)
    return reply


def question_on_page(browser: WebDriver, turn: str) -> str:
    """The question's entry on the page, once it shows with its buttons."""
    item = f'#confirmations li[data-turn="{turn}"]'
    wait_until(browser, lambda b: QUESTION in text_of(b, item)
               and "asked by voice" in text_of(b, item)
               and len(b.find_elements(By.CSS_SELECTOR, f"{item} button.confirm")) == 2,
               "the voice turn's question with Yes and No")
    return item


async def drained(bus: Bus) -> list[str]:
    """The names of the tools called since the inbox was last drained."""
    names = []
    while (msg := await bus.recv(timeout=0)) is not None:
        if isinstance(msg, ToolRequest):
            names.append(msg.name)
    return names


def answered_on_page(stack: PageStack, browser: WebDriver, word: str) -> tuple[Reply, list[str]]:
    """A voice question answered with ``word``'s button: the answer in the voice session,
    and the tools called meanwhile."""

    async def body(bus: Bus) -> tuple[Reply, list[str]]:
        bus.subscribe(Reply.TOPIC, ToolRequest.TOPIC)
        await bus.wait_connected()
        asked = await voice_question(bus, stack)
        item = await asyncio.to_thread(question_on_page, browser, asked.turn or "")
        assert await drained(bus) == []  # nothing ran before the answer
        answered = asyncio.ensure_future(bus.wait_for(
            Reply, lambda r: r.session == LOCAL_SESSION and r.turn != asked.turn, timeout=60))
        button = f"{item} button.confirm:nth-of-type({1 if word == 'Yes' else 2})"
        assert await asyncio.to_thread(
            lambda: browser.find_element(By.CSS_SELECTOR, button).text) == word
        await asyncio.to_thread(press, browser, button, f"the {word} button")
        reply = await answered
        # The dialogue sends a turn's tool calls before its Reply, and the bus keeps a
        # sender's order: every call of the answer is in the inbox now.
        return reply, await drained(bus)

    return on_bus(stack, body)


def test_yes_on_the_page_runs_the_voice_turns_action(
    stack: MicPageStack, browser: WebDriver
) -> None:
    opened(browser, stack)
    reply, calls = answered_on_page(stack, browser, "Yes")
    assert reply.text == "Sent it."
    assert calls == ["send_note"]
    tool_messages = [m for m in stack.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["sent"]  # the tool ran, once
    wait_until(browser, lambda b: "Nothing waits." in text_of(b, "#confirmations"),
               "the buttons gone once answered")
    wait_until(browser, lambda b: "Assistant: Sent it." in text_of(b, "#chat"),
               "the answer in the conversation")


def test_no_on_the_page_runs_nothing(stack: MicPageStack, browser: WebDriver) -> None:
    opened(browser, stack)
    reply, calls = answered_on_page(stack, browser, "No")
    assert reply.text == "Got it, nothing done."
    assert calls == []
    assert len(stack.llm.requests) == 1  # the voice turn's own round, none after the no
    wait_until(browser, lambda b: "Nothing waits." in text_of(b, "#confirmations"),
               "the buttons gone once answered")


def test_a_lapsed_voice_question_loses_its_buttons(
    stack: MicPageStack, browser: WebDriver
) -> None:
    opened(browser, stack)

    async def body(bus: Bus) -> Reply:
        bus.subscribe(Reply.TOPIC)
        await bus.wait_connected()
        asked = await voice_question(bus, stack)
        await asyncio.to_thread(question_on_page, browser, asked.turn or "")
        # The mic, opened for the answer, heard none: the dialogue cancels the action.
        bus.publish(ListenClosed(reason="timeout", follow_up=True))
        return asked

    asked = on_bus(stack, body)
    wait_until(browser, lambda b: "Nothing waits." in text_of(b, "#confirmations"),
               "the buttons gone once the question lapsed")
    late = httpx.post(f"{stack.url}/page/confirm", json={"answer": "yes", "turn": asked.turn},
                      headers={"X-CSRF-Token": stack.csrf()}, timeout=30)
    assert late.status_code == 409, late.text
    assert "no question of the voice session waits" in late.json()["error"]
