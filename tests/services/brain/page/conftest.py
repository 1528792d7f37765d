"""The page's tests run against the real text path (broker, tool executor, dialogue, brain,
the scripted LLM) with the real speaker (espeak-ng, writing WAV files instead of playing)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from tests.helpers.browser import chromium
from tests.helpers.dialogue_stack import Stack
from tests.helpers.processes import Process
from tests.helpers.speaker import NO_SOUND_SERVER
from tests.helpers.tool_executor import tool

SEND = tool("send_note", "Send a note to the team.", {"text": "string"}, modifies=True,
            confirm={"en": "Send {text} to the team?"}) | {"result": "sent"}
"""A tool that modifies: it runs only after the user's yes."""


class PageStack(Stack):
    def start_speaker(self) -> None:
        self.processes["services.tts"] = Process(
            "services.tts", "--engine", "espeak", *self.folder.args(),
            "--wav-out", str(self.root / "wav"),
            log_dir=self.root, env={"PULSE_SERVER": NO_SOUND_SERVER},
        )

    def csrf(self) -> str:
        """The token the page's HTML carries."""
        page = httpx.get(f"{self.url}/", timeout=10).text
        found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
        assert found, page
        return found.group(1)


@pytest.fixture(scope="module")
def stack() -> Iterator[PageStack]:
    stack = PageStack([SEND])
    stack.start()
    stack.start_speaker()
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()
