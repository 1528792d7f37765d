"""Fixtures shared by the services' tests: the real Kokoro, a sound card PortAudio plays to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.mic.card import rescan
from services.tts.kokoro.voice import KokoroVoice, load_kokoro
from settings.schema import Config
from tests.helpers.soundcard import SoundCard
from tests.helpers.speaker import CACHE


@pytest.fixture(scope="module")
def voice() -> Iterator[KokoroVoice]:
    """The real Kokoro, embedded model, loaded and warmed as the service does."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("XDG_CACHE_HOME", str(CACHE))
        yield load_kokoro(Config())


@pytest.fixture
def portaudio_card(monkeypatch: pytest.MonkeyPatch) -> Iterator[SoundCard]:
    """A virtual sound card for PortAudio in this test process (not a service's)."""
    card = SoundCard()
    for name, value in card.env({}).items():  # PulseAudio's ALSA plugin reads them at open
        monkeypatch.setenv(name, value)
    try:
        started = card.start()
        # PortAudio lists the devices once per process, and an earlier test of this one may
        # have started it with no sound server up: list them again, as the mic does.
        rescan()
        yield started
    finally:
        card.stop()
