"""One whole assistant for every test of this package (its start loads Kokoro and Whisper)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.system.e2e.world import World


@pytest.fixture(scope="package")
def world() -> Iterator[World]:
    with tempfile.TemporaryDirectory(prefix="da-e2e-") as root:
        world = World(Path(root))
        try:
            yield world.start()
        finally:
            world.close()


@pytest.fixture(autouse=True)
def fresh_script(request: pytest.FixtureRequest) -> None:
    """Each test scripts the LLM from scratch (and sees only its own requests)."""
    if "world" in request.fixturenames:
        request.getfixturevalue("world").assistant.llm.reset()
