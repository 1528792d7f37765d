"""The listen mode changed while the mic runs (``ListenModeRequest``): the mic's real audio
path (Silero, the segmenter, the wake word detector) in one process, on a stand-in bus,
fed spoken questions block by block. Its handlers take the bus messages as the service's
serve loop hands them over. Sample positions, no clocks.

The request over a real bus, from the page, is in ``tests/services/brain/page``."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
import pytest

from bus.message import Message
from bus.messages import (
    ListenModeRequest,
    ListenModeState,
    ListenRequest,
    Reply,
    Utterance,
    WakeWordHeard,
)
from bus.messages.audio import LISTEN_MODES
from hearing.wake import WakeWordMissing
from services.mic.backends import load_backends
from services.mic.service import Listener
from services.mic.sources import Block
from settings.schema import Config, ListenConfig, WakeConfig
from tests.helpers.pauses import RATE, speech16

START = 1_000_000.0
"""The epoch time the fed audio starts at."""
BLOCK = 512
QUESTION = "What time is it?"
WORD = "Okay Nabu."


@dataclass
class StandIn:
    """The bus: what the mic publishes."""

    sent: list[Message] = field(default_factory=list)
    name: str = "mic"

    def publish(self, msg: Message) -> None:
        self.sent.append(msg)

    def set_state(self, state: str, detail: str = "") -> None:
        pass


class Mic:
    def __init__(self, mode: str) -> None:
        config = Config.model_validate({
            "listen": {"mode": mode}, "wake": {"earcon": False},
            "vad": {"end_of_turn": "silence"},  # no STT here to read a turn's words
        })
        self.bus = StandIn()
        self.listener = Listener(self.bus, config.listen, config.vad,  # type: ignore[arg-type]
                                 load_backends(config, replaying=True))
        self.position = 0
        self.fresh = True

    @property
    def now(self) -> float:
        return START + self.position / RATE

    def play(self, *parts: np.ndarray) -> list[Message]:
        """Hear ``parts`` one after another, then the silence that ends a turn; what the
        mic published meanwhile."""
        before = len(self.bus.sent)
        audio = np.concatenate([*parts, np.zeros(round(2.0 * RATE), np.float32)])
        pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
        for at in range(0, len(pcm), 2 * BLOCK):
            chunk = pcm[at : at + 2 * BLOCK]
            self.position += len(chunk) // 2
            self.listener.hearing.hear(Block(chunk, self.now, fresh=self.fresh))
            self.fresh = False
        return self.bus.sent[before:]

    def ask(self, msg: Message) -> list[Message]:
        before = len(self.bus.sent)
        self.listener.handle(msg)
        return self.bus.sent[before:]

    def switch(self, mode: str) -> ListenModeState:
        request = ListenModeRequest(mode=mode)
        [state] = self.ask(request)
        assert isinstance(state, ListenModeState) and state.reply_to == request.id
        return state

    def press_key(self) -> None:
        """``desktop-assistant listen``, sent as the latest audio was captured."""
        assert self.ask(ListenRequest(ts=self.now)) == []

    def answer(self, turn: str | None) -> None:
        """An empty answer: the conversation that the key or the word opened ends."""
        self.ask(Reply(reply_to=turn, session="local", text="", turn=turn))


def questions(sent: list[Message]) -> list[Utterance]:
    return [m for m in sent if isinstance(m, Utterance) and not m.partial]


@pytest.fixture(scope="module")
def question() -> np.ndarray:
    return np.concatenate([np.zeros(round(0.5 * RATE), np.float32), speech16(QUESTION)])


def test_from_always_to_push_the_mic_hears_only_after_the_key(question: np.ndarray) -> None:
    mic = Mic("always")
    assert len(questions(mic.play(question))) == 1  # always: heard without a key

    state = mic.switch("push")
    assert (state.mode, state.error) == ("push", "")
    assert questions(mic.play(question)) == []  # closed until the key

    mic.press_key()
    [heard] = questions(mic.play(question))
    mic.answer(heard.turn)
    assert questions(mic.play(question)) == []  # the empty answer closed it again

    assert mic.switch("always").mode == "always"
    assert len(questions(mic.play(question))) == 1  # no key needed any more


def test_wake_mode_loads_the_detector_when_first_asked(question: np.ndarray) -> None:
    mic = Mic("push")
    assert mic.listener.hearing.wake_word is None  # not loaded at the start in push mode
    word = speech16(WORD, voice="jf_alpha")

    state = mic.switch("wake")
    assert (state.mode, state.error) == ("wake", "")
    assert mic.listener.hearing.wake_word is not None
    assert questions(mic.play(question)) == []  # no word, not heard
    sent = mic.play(word, np.zeros(round(0.3 * RATE), np.float32), question)
    [woke] = [m for m in sent if isinstance(m, WakeWordHeard)]
    [heard] = questions(sent)
    assert heard.turn == woke.turn  # the word started the question's turn
    mic.answer(heard.turn)

    assert mic.switch("push").mode == "push"  # the word opens nothing in push mode
    sent = mic.play(word, np.zeros(round(0.3 * RATE), np.float32), question)
    assert [m for m in sent if isinstance(m, WakeWordHeard | Utterance)] == []
    loaded = mic.listener.modes.wake_word
    assert mic.switch("wake").error == "" and mic.listener.hearing.wake_word is loaded  # kept


def test_an_unknown_mode_is_refused_and_the_mic_goes_on(question: np.ndarray) -> None:
    mic = Mic("always")
    state = mic.switch("loud")
    assert state.mode == "always"
    assert "unknown listen mode 'loud'" in state.error
    assert "wake, always, push" in state.error
    assert len(questions(mic.play(question))) == 1  # still always listening

    asked = mic.switch("")  # an empty mode only asks
    assert (asked.mode, asked.error) == ("always", "")


def test_without_the_wake_word_package_wake_mode_opens_for_the_key(
    monkeypatch: pytest.MonkeyPatch, question: np.ndarray
) -> None:
    mic = Mic("always")
    monkeypatch.setitem(sys.modules, "pymicro_wakeword", None)  # `import` fails
    state = mic.switch("wake")
    assert state.mode == "wake"
    assert "pymicro-wakeword" in state.error and "desktop-assistant listen" in state.error
    assert questions(mic.play(question)) == []  # it does not fall back to always
    mic.press_key()
    assert len(questions(mic.play(question))) == 1


def test_wake_asked_again_loads_the_detector_that_was_missing(
    monkeypatch: pytest.MonkeyPatch, question: np.ndarray
) -> None:
    def not_installed(config: WakeConfig) -> None:
        raise WakeWordMissing("the wake word needs pymicro-wakeword, which is not installed")

    with monkeypatch.context() as missing:
        missing.setattr("services.mic.backends.open_wake", not_installed)
        mic = Mic("wake")  # started without its package
    asked = mic.switch("")
    assert asked.mode == "wake" and "no wake word detector is loaded" in asked.error
    state = mic.switch("wake")  # installed meanwhile: no restart needed
    assert (state.mode, state.error) == ("wake", "")
    word = speech16(WORD, voice="jf_alpha")
    sent = mic.play(word, np.zeros(round(0.3 * RATE), np.float32), question)
    assert [type(m) for m in sent if isinstance(m, WakeWordHeard)] == [WakeWordHeard]


def test_the_modes_are_the_configs() -> None:
    assert LISTEN_MODES == ListenConfig.model_fields["mode"].annotation.__args__
