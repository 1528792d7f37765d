"""``[audio] echo_cancel = "auto"`` (the default): the canceller is on where the sound server
records the monitor of the output the assistant plays on and the mic is a microphone; off,
with the reason, everywhere else. And what interrupts an answer (``[listen] barge_in``)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from services.mic.card import rescan
from services.mic.echo_choice import EchoChoice, choose_echo, server_defaults, speech_barges_in
from settings.schema import AudioConfig, ListenConfig
from tests.helpers.soundcard import SINK, SoundCard


def opens(source: str) -> None:
    """A monitor that records."""


def closed(source: str) -> None:
    raise OSError(f"Error opening RawInputStream: {source} unanticipated host error")


def microphone() -> tuple[str, str]:
    return ("speakers", "alsa_input.usb-mic")


@pytest.fixture
def server(card: SoundCard, monkeypatch: pytest.MonkeyPatch) -> Iterator[SoundCard]:
    """This process is a client of the test card's sound server."""
    env = card.env()
    for name in ("PULSE_SERVER", "PULSE_RUNTIME_PATH"):
        monkeypatch.setenv(name, env[name])
    rescan()  # PortAudio lists the server's device only while it answers
    yield card


def pactl(card: SoundCard, *args: str) -> None:
    subprocess.run(["pactl", *args], env=card.env(), check=True, timeout=15,
                   capture_output=True)


def test_auto_is_off_where_the_mic_is_the_outputs_own_monitor(server: SoundCard) -> None:
    """The test card's mic records its speaker's monitor: cancelling that echo would take
    out all the mic hears (the user's voice is played into the same sink)."""
    assert server_defaults() == (SINK, f"{SINK}.monitor")
    choice = choose_echo(AudioConfig(), card="")
    assert not choice.on and not choice.problem
    assert f"own monitor ({SINK}.monitor)" in choice.reason


def test_auto_is_on_where_a_microphone_hears_the_room(server: SoundCard) -> None:
    """A second sink's monitor as the default input stands for a microphone: the speaker's
    monitor then records, and the canceller is on."""
    pactl(server, "load-module", "module-null-sink", "sink_name=micsink")
    pactl(server, "set-default-source", "micsink.monitor")
    try:
        choice = choose_echo(AudioConfig(), card="")
        assert choice.on and not choice.explicit, choice
        # Set by hand, it is what the user said, whatever the server offers.
        assert not choose_echo(AudioConfig(echo_cancel=False), card="").on
    finally:
        pactl(server, "set-default-source", f"{SINK}.monitor")


@pytest.mark.parametrize(
    ("audio", "card", "why"),
    [
        (AudioConfig(echo_reference="bus"), "", 'with echo_reference = "bus" set echo_cancel'),
        (AudioConfig(output="hw:1,0"), "", "plays on 'hw:1,0', not the sound server's"),
        (AudioConfig(), "USB Mic", "the mic is 'USB Mic', not the sound server's default"),
    ],
    ids=["the speaker's reference", "another output", "a mic past the server"],
)
def test_auto_is_off_where_the_monitor_is_not_what_the_mic_hears(
    audio: AudioConfig, card: str, why: str
) -> None:
    choice = choose_echo(audio, card, opens=opens, defaults=microphone)
    assert not choice.on and not choice.problem and why in choice.reason, choice


def test_auto_without_a_monitor_is_off_and_says_why() -> None:
    choice = choose_echo(AudioConfig(), "", opens=closed, defaults=lambda: None)
    assert not choice.on and choice.problem
    assert choice.reason.startswith("the default output's monitor does not open: ")
    assert "unanticipated host error" in choice.reason
    assert choose_echo(AudioConfig(), "", opens=opens, defaults=lambda: None).on
    assert not choose_echo(AudioConfig(), "", replaying=True, opens=opens).on


@pytest.mark.parametrize(
    ("choice", "barge_in", "speech"),
    [
        (EchoChoice(True, "auto"), "auto", False),  # auto: the word only
        (EchoChoice(True, "set", explicit=True), "auto", True),  # asked for by hand
        (EchoChoice(True, "auto"), "speech", True),
        (EchoChoice(True, "set", explicit=True), "word", False),
        (EchoChoice(False, "no monitor"), "speech", False),  # nothing to take the echo out
    ],
)
def test_plain_speech_interrupts_only_through_a_canceller_that_was_asked_for(
    choice: EchoChoice, barge_in: str, speech: bool
) -> None:
    assert speech_barges_in(choice, ListenConfig(barge_in=barge_in)) is speech
