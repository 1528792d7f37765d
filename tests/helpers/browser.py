"""A real headless Chromium driven by Selenium, with Debian's browser and driver only.

``./bootstrap test`` installs ``chromium`` and ``chromium-driver`` (apt) and selenium (the
test extra). The driver's path is given, so Selenium Manager never looks for one on the
network; nothing is downloaded while the tests run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from selenium import webdriver
from selenium.common.exceptions import (
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PATIENCE = 30.0
"""Seconds a DOM condition may take: CI's machine is small and shared."""
T = TypeVar("T")


def chromium(width: int = 1280, height: int = 1500) -> WebDriver:
    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",  # the tests may run as root, where Chromium's sandbox refuses
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def wait_until(driver: WebDriver, condition: Callable[[WebDriver], T], what: str) -> T:
    """``condition``'s first true answer, or a failure that says what never came. An
    element the page re-rendered meanwhile (stale, or detached as a key was sent to it) is
    looked for again."""
    waiting = WebDriverWait(
        driver, PATIENCE, poll_frequency=0.1,
        ignored_exceptions=(StaleElementReferenceException, ElementNotInteractableException),
    )
    result: Any = waiting.until(condition, f"{what} (within {PATIENCE:g} s)")
    return result  # type: ignore[no-any-return]


def text_of(driver: WebDriver, css: str) -> str:
    """The text of every element ``css`` selects, read in one step of the page's own
    script: a list re-rendered between finding an element and reading it cannot fail it."""
    text: str = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText).join(' ')",
        css,
    )
    return text


def press(driver: WebDriver, css: str, what: str) -> None:
    """Press Enter on the element ``css`` selects, as a keyboard user would; again on the
    new element if the page re-rendered it between finding and pressing."""

    def pressed(d: WebDriver) -> bool:
        d.find_element(By.CSS_SELECTOR, css).send_keys(Keys.ENTER)
        return True

    wait_until(driver, pressed, what)
