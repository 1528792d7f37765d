"""A question after the wake word, and one resumed after a pause, are judged at the short
pause like any other (issue 29): the mic's real audio path (Silero, the wake word, Smart
Turn, the segmenter) in one process, on a stand-in bus whose STT answers each partial with
a guess before the next block. Sample positions, no clocks."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from bus.message import Message
from bus.messages import SpeculativeTranscript, SpeechEnded, Utterance, WakeWordHeard
from services.mic.backends import load_backends
from services.mic.service import Listener
from services.mic.sources import Block
from settings.schema import Config
from tests.helpers.pauses import RATE, speech16, split

START = 1_000_000.0
"""The epoch time the replayed audio starts at."""
BLOCK = 512


@dataclass
class StandIn:
    """The bus: what the mic publishes, and the STT's guess of each partial (``guess``)."""

    guess: dict[float, str] = field(default_factory=dict)
    sent: list[tuple[int, Message]] = field(default_factory=list)
    position: int = 0
    pending: list[SpeculativeTranscript] = field(default_factory=list)
    name: str = "test"

    def publish(self, msg: Message) -> None:
        self.sent.append((self.position, msg))
        if isinstance(msg, Utterance) and msg.partial:
            words = self.words(msg.duration)
            self.pending.append(SpeculativeTranscript(
                text=words, lang="en", duration=msg.duration, speech_end=msg.speech_end,
                turn=msg.turn))

    def words(self, duration: float) -> str:
        """The guess for a partial this long: the longest text whose audio it holds."""
        fits = [text for seconds, text in sorted(self.guess.items()) if duration >= seconds]
        return fits[-1] if fits else next(iter(self.guess.values()))

    def set_state(self, state: str, detail: str = "") -> None:
        pass


def heard(audio: np.ndarray, mode: str, guess: dict[float, str]) -> StandIn:
    config = Config.model_validate({"listen": {"mode": mode}, "wake": {"earcon": False}})
    bus = StandIn(guess)
    listener = Listener(bus, config.listen, config.vad,  # type: ignore[arg-type]
                        load_backends(config, replaying=True))
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
    for at in range(0, len(pcm), 2 * BLOCK):
        for msg in bus.pending:  # the guess comes back between two blocks
            listener.handle(msg)
        bus.pending.clear()
        bus.position = at // 2 + BLOCK
        listener.hearing.hear(Block(pcm[at : at + 2 * BLOCK], START + bus.position / RATE,
                                    fresh=at == 0))
    return bus


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE), np.float32)


def waited(bus: StandIn) -> list[float]:
    """For each turn: seconds of audio heard after its end of speech when it ended."""
    return [at / RATE - (m.speech_end - START) for at, m in bus.sent
            if isinstance(m, SpeechEnded)]


def test_a_question_after_the_wake_word_ends_at_the_short_pause() -> None:
    word = speech16("Okay Nabu.", voice="jf_alpha")
    question = speech16("What time is it?")
    bus = heard(np.concatenate([silence(0.5), word, silence(0.3), question, silence(2.0)]),
                "wake", {0.0: "What time is it?"})
    assert any(isinstance(m, WakeWordHeard) for _, m in bus.sent)
    [wait] = waited(bus)
    assert wait < 0.5, f"ended {wait:.2f} s after the speech: at the long silence"


def test_a_question_resumed_after_a_pause_ends_at_its_next_short_pause() -> None:
    paused = split("What's the weather like in Rome tomorrow?", 6)
    before = len(paused.before) / RATE
    bus = heard(np.concatenate([silence(0.5), paused.with_pause(0.5), silence(2.0)]), "always",
                {0.0: "What's the weather like in", before + 0.6: "What's the weather like "
                 "in Rome tomorrow?"})
    partials = [m for _, m in bus.sent if isinstance(m, Utterance) and m.partial]
    assert len(partials) >= 2, "speech after the pause asked for no new guess"
    final = next(m for _, m in bus.sent if isinstance(m, Utterance) and not m.partial)
    assert partials[-1].pcm == final.pcm  # the last guess is of the whole utterance
    [wait] = waited(bus)
    assert wait < 0.5, f"ended {wait:.2f} s after the speech: at the long silence"


@pytest.mark.parametrize("pause", [0.5, 0.7])
def test_a_short_rest_after_a_pause_is_judged_as_said_fluently(pause: float) -> None:
    """"Set a timer for ... ten minutes.": Smart Turn heard the whole utterance, its pause
    included, as unfinished (0.54 at 0.5 s, 0.05 at 0.7 s) where it hears the words said
    fluently as finished (0.97), so the turn waited the long silence. With the pause cut
    to the short one for the model, it ends at its next short pause, after one turn."""
    paused = split("Set a timer for ten minutes.", 4)
    before = len(paused.before) / RATE
    bus = heard(np.concatenate([silence(0.5), paused.with_pause(pause), silence(2.0)]), "always",
                {0.0: "Set a timer for", before + 0.6: "Set a timer for ten minutes."})
    partials = [m for _, m in bus.sent if isinstance(m, Utterance) and m.partial]
    assert len(partials) == 2, "one guess at the pause, one of the whole question"
    [wait] = waited(bus)  # one turn: the pause did not end it
    assert wait < 0.5, f"ended {wait:.2f} s after the speech: at the long silence"
