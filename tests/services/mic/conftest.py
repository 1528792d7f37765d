"""The virtual sound card the mic tests record from (one per test module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.soundcard import SoundCard


@pytest.fixture(scope="module")
def card() -> Iterator[SoundCard]:
    with SoundCard() as card:
        yield card
