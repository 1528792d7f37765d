"""The wake word's chime on the real virtual sound card: whole, from one stream, and a sound
server that goes away costs a warning, never the caller."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest

from bench.ear import RATE, Ear
from services.mic.earcon import NOTE, NOTES, Earcon
from tests.helpers.soundcard import SoundCard

LOUD = 0.01
WHOLE = len(NOTES) * NOTE - 0.025
"""Seconds the chime is loud at the card, less the quiet edges of its envelope (0.1 s when
whole, give or take a sample at each edge; a stream stopped through PulseAudio's ALSA
plugin used to lose the second note's end: 0.09 s)."""


@pytest.fixture
def card(portaudio_card: SoundCard) -> SoundCard:
    return portaudio_card


def loud_seconds(ear: Ear, start: int, timeout: float = 10.0) -> float:
    """Seconds the next sound recorded after ``start`` is loud, once it has ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        loud = np.flatnonzero(np.abs(ear.samples(start)) > LOUD)
        if loud.size and ear.position() - start - loud[-1] > RATE // 10:  # 0.1 s quiet after
            return float(loud[-1] - loud[0]) / RATE
        time.sleep(0.02)  # polling the recording, with a deadline
    raise AssertionError("nothing was heard")


def test_chimes_play_whole_from_the_one_stream_opened_at_start(card: SoundCard) -> None:
    ear = Ear(card).start()
    earcon = Earcon()
    try:
        lengths = []
        for _ in range(3):
            start = ear.position()
            earcon.play()
            lengths.append(loud_seconds(ear, start))
        assert min(lengths) >= WHOLE, lengths
        assert earcon.opened == 1
    finally:
        earcon.close()
        ear.stop()


def test_without_a_sound_server_it_warns_and_play_returns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/nobody-listens")
    with caplog.at_level(logging.WARNING, logger="services.mic.earcon"):
        earcon = Earcon()
        earcon.play()  # returns at once: the mic's loop goes on
        earcon.close()
    assert earcon.opened == 0
    assert any("earcon: cannot open the output" in r.getMessage() for r in caplog.records)


def test_a_sound_server_that_went_away_is_used_again_once_back(
    card: SoundCard, caplog: pytest.LogCaptureFixture
) -> None:
    earcon = Earcon()
    try:
        ear = Ear(card).start()
        start = ear.position()
        earcon.play()
        loud_seconds(ear, start)
        ear.stop()
        card.unplug()
        card.start()  # the same address: a restarted sound server
        ear = Ear(card).start()
        with caplog.at_level(logging.WARNING, logger="services.mic.earcon"):
            start = ear.position()
            earcon.play()
            assert loud_seconds(ear, start) >= WHOLE
        ear.stop()
        assert any("earcon: the output stream failed" in r.getMessage() for r in caplog.records)
        assert earcon.opened == 2
    finally:
        earcon.close()


def test_the_stream_it_holds_leaves_the_default_output_to_the_speaker(card: SoundCard) -> None:
    import sounddevice as sd

    ear = Ear(card).start()
    earcon = Earcon()
    try:
        earcon.play()
        loud_seconds(ear, 0)  # its stream is open: it has played through it
        start = ear.position()
        t = np.arange(RATE // 5) / RATE
        tone = np.concatenate([0.3 * np.sin(2 * np.pi * 440 * t), np.zeros(RATE // 10)])
        with sd.OutputStream(samplerate=RATE, channels=1, dtype="float32") as other:
            other.write(tone.astype(np.float32))
        assert loud_seconds(ear, start) >= 0.15  # the other stream was heard, whole
        assert earcon.opened == 1
    finally:
        earcon.close()
        ear.stop()
