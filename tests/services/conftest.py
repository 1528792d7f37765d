"""Fixtures shared by the speaking tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.tts.kokoro_voice import KokoroVoice, load_kokoro
from settings.schema import Config
from tests.helpers.speaker import CACHE


@pytest.fixture(scope="module")
def voice() -> Iterator[KokoroVoice]:
    """The real Kokoro, embedded model, loaded and warmed as the service does."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("XDG_CACHE_HOME", str(CACHE))
        yield load_kokoro(Config())
