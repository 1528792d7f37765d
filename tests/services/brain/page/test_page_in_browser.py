"""The page in a real headless Chromium, live against the real assistant's processes.

Every wait is for a DOM condition (or a bus message), never for time.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from bus.client import Bus
from bus.message import new_id
from bus.messages import Heartbeat, Reply, Transcript
from tests.helpers import llm_chunks as c
from tests.helpers.browser import press, text_of, wait_until
from tests.helpers.processes import ROOT, python_env
from tests.services.brain.page.conftest import PageStack

LIVE = ("ready", "degraded")
"""The speaker's states once it speaks (degraded: no sound card, it writes WAV files)."""
SCREENSHOT = os.environ.get("DESKTOP_ASSISTANT_PAGE_SCREENSHOT", "")
"""Where the last test saves the page as a PNG (docs/page.png is made so)."""


def opened(browser: WebDriver, stack: PageStack) -> WebDriver:
    browser.get(f"{stack.url}/")
    wait_until(browser, lambda b: b.find_element(By.ID, "connection").text == "live",
               "the page's event stream is open")
    return browser


def test_a_typed_question_streams_its_answer(stack: PageStack, browser: WebDriver) -> None:
    first, rest = "The first sentence comes at once. ", "The second one waits."
    stack.llm.script({"stream": [*c.text_items(first), {"gate": "rest"},
                                 *c.text(rest)["stream"][1:]]})
    opened(browser, stack)
    box = browser.find_element(By.ID, "ask-text")
    box.send_keys("Tell me two things", Keys.ENTER)  # the keyboard alone

    answer = "#chat > li.text:last-child .answer"
    wait_until(browser, lambda b: "first sentence comes at once" in text_of(b, answer),
               "the answer's first words, before the model finished")
    assert "second one waits" not in text_of(browser, answer)
    assert browser.find_element(By.CSS_SELECTOR, answer).get_attribute("aria-busy") == "true"

    stack.llm.gate("rest").set()
    wait_until(browser, lambda b: text_of(b, answer) == f"Assistant: {first}{rest}",
               "the whole answer")
    wait_until(browser, lambda b: "typed turn: Tell me two things" in text_of(b, "#turn-list"),
               "the typed turn in the Turns list")


def test_an_action_waits_for_the_yes_button(stack: PageStack, browser: WebDriver) -> None:
    stack.llm.script(c.tool_calls([c.call("send_note", text="lunch at one")]),
                     c.text("Sent it."))
    opened(browser, stack)
    browser.find_element(By.ID, "ask-text").send_keys("Tell the team lunch is at one.",
                                                      Keys.ENTER)
    wait_until(browser, lambda b: "Send lunch at one to the team?" in text_of(
        b, "#confirmations"), "the question of the action that waits")
    assert stack.llm.requests[-1]["messages"][-1]["role"] == "user"  # nothing ran yet
    yes = '#confirmations button.confirm'
    wait_until(browser, lambda b: b.find_element(By.CSS_SELECTOR, yes).text == "Yes",
               "the Yes button")
    press(browser, yes, "the Yes button")
    wait_until(browser, lambda b: "Assistant: Sent it." in text_of(b, "#chat > li:last-child"),
               "the answer after the yes")
    wait_until(browser, lambda b: "Nothing waits." in text_of(b, "#confirmations"),
               "no action waiting any more")
    tool_messages = [m for m in stack.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["sent"]


def test_a_voice_turn_appears_live_with_its_stage_times(
    stack: PageStack, browser: WebDriver
) -> None:
    opened(browser, stack)
    stack.llm.script(c.text("It is sunny and warm."))
    turn = new_id()

    async def speak() -> Reply:
        async with Bus(stack.folder.endpoints, "test") as bus:
            # the speaker must be up, or the turn would never go quiet
            await bus.wait_for(Heartbeat, lambda h: h.service == "tts" and h.state in LIVE,
                               timeout=60)
            replied = asyncio.ensure_future(
                bus.wait_for(Reply, lambda r: r.turn == turn, timeout=60))
            await bus.wait_connected()
            bus.publish(Transcript(text="How is the weather?", lang="en", turn=turn,
                                   speech_end=time.time() - 0.3))
            return await replied

    assert asyncio.run(speak()).text == "It is sunny and warm."
    entry = f'#chat > li[data-turn="{turn}"]'
    wait_until(browser, lambda b: "You (said, en): How is the weather?" in text_of(b, entry),
               "what was heard, and its language, in the conversation")
    wait_until(browser, lambda b: "Assistant: It is sunny and warm." in text_of(b, entry),
               "what was said")
    row = f'#turn-list > li[data-turn="{turn}"]'
    wait_until(browser, lambda b: "(in progress)" not in text_of(b, row)
               and "quiet" in text_of(b, row), "the voice turn, played to its end")
    stages = text_of(browser, f"{row} .stages")
    for stage in ("transcript 0.", "llm.first_token", "say", "playing", "reply"):
        assert stage in stages
    assert browser.find_elements(By.CSS_SELECTOR, f"{row} meter")  # a bar per stage

    press(browser, f"{row} .turn-open", "the turn's button")
    wait_until(browser, lambda b: "stt.transcript" in b.find_element(By.ID, "messages-text").text
               and "tts.say" in b.find_element(By.ID, "messages-text").text,
               "the turn's messages, as the tap prints them")


def cli_volume(stack: PageStack) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "volume", "--config", str(stack.folder.path)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_volume_control_reaches_the_speaker(stack: PageStack, browser: WebDriver) -> None:
    opened(browser, stack)
    shown = lambda b: b.find_element(By.ID, "volume-value").text  # noqa: E731
    wait_until(browser, lambda b: shown(b) not in ("?", ""), "the speaker's volume")
    before = float(shown(browser))
    browser.find_element(By.ID, "volume-down").send_keys(Keys.ENTER)
    wait_until(browser, lambda b: float(shown(b)) < before, "the lower volume")
    assert cli_volume(stack) == shown(browser)  # `desktop-assistant volume` asks the speaker

    slider = browser.find_element(By.ID, "volume")
    lowered = float(shown(browser))
    slider.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    wait_until(browser, lambda b: float(shown(b)) > lowered, "the slider's volume")
    wait_until(browser, lambda b: cli_volume(stack) == shown(b),
               "the speaker at the slider's value")


def test_a_narrow_window_stays_usable(stack: PageStack, browser: WebDriver) -> None:
    browser.set_window_size(380, 800)
    try:
        opened(browser, stack)
        overflow = "return document.documentElement.scrollWidth - window.innerWidth"
        assert browser.execute_script(overflow) <= 0  # one column, nothing off to the side
        stack.llm.script(c.text("Yes, it fits."))
        browser.find_element(By.ID, "ask-text").send_keys("Does it fit?", Keys.ENTER)
        wait_until(browser, lambda b: "Yes, it fits." in text_of(b, "#chat > li:last-child"),
                   "the answer in a narrow window")
        assert browser.execute_script(overflow) <= 0
    finally:
        browser.set_window_size(1280, 1500)


def test_status_and_settings(stack: PageStack, browser: WebDriver) -> None:
    opened(browser, stack)
    dialogue = '#services [data-service="dialogue"]'
    wait_until(browser, lambda b: "dialogue ready" in text_of(b, dialogue),
               "the dialogue's heartbeat state")
    wait_until(browser, lambda b: "silent" in text_of(b, '#services [data-service="mic"]'),
               "a service with no heartbeat shown silent")
    wait_until(browser, lambda b: stack.llm.url in b.find_element(By.ID, "llm").text, "the LLM")
    browser.find_element(By.CSS_SELECTOR, "#doctor-details summary").send_keys(Keys.ENTER)
    wait_until(browser, lambda b: "config" in text_of(b, "#doctor tbody th"),
               "the doctor's checks")
    assert "FAIL" in text_of(browser, "#doctor-state")  # no mic here: the summary says so
    port = '#settings-table tr[data-key="brain.port"]'
    wait_until(browser, lambda b: str(stack.port) in text_of(b, port), "the brain's port")
    assert "config.toml" in text_of(browser, port)  # where the value came from
    assert "default" in text_of(browser, '#settings-table tr[data-key="brain.timeout"]')
    browser.find_element(By.ID, "settings-filter").send_keys("brain.port")
    wait_until(browser, lambda b: len([r for r in b.find_elements(By.CSS_SELECTOR,
               "#settings-table tbody tr") if r.is_displayed()]) == 1, "the filtered settings")
    if SCREENSHOT:
        browser.find_element(By.ID, "settings-filter").clear()
        browser.set_window_size(1280, 1100)
        browser.execute_script("document.activeElement.blur(); window.scrollTo(0, 0); "
                               "document.getElementById('doctor-details').open = false")
        browser.save_screenshot(SCREENSHOT)
