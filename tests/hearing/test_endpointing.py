"""The end-of-turn decision in the segmenter, with a scripted model and scripted Silero
probabilities: a complete turn closes at the short pause, an incomplete one waits for
the long silence, and speech after a closed turn starts the next one whole."""

from __future__ import annotations

import math

import pytest

from hearing.endpointing import UNFINISHED_WAIT
from hearing.segmenter import Began, Ended, Event, Paused, Segmenter
from hearing.vad import FRAME, RATE
from settings.schema import VadConfig

VAD = VadConfig(silence=1.2, short_silence=0.2, end_of_turn="model", pre_roll=0.3,
                min_speech=0.25, end_of_turn_threshold=0.5)
SHORT_FRAMES = math.ceil(0.2 * RATE / FRAME)
LONG_FRAMES = math.ceil(1.2 * RATE / FRAME)
LONGEST_FRAMES = math.ceil(1.2 * UNFINISHED_WAIT * RATE / FRAME)


class ScriptedModel:
    """Says ``probability`` for every pause it is asked about, and keeps what it heard."""

    def __init__(self, probability: float) -> None:
        self.probability = probability
        self.heard: list[bytes] = []

    def __call__(self, pcm: bytes) -> float:
        self.heard.append(pcm)
        return self.probability


class Stream:
    """Frames pushed into a segmenter; each frame's samples are its own number, so any
    frame can be found again in an utterance's audio."""

    def __init__(self, segmenter: Segmenter) -> None:
        self.segmenter = segmenter
        self.count = 0
        self.events: list[tuple[int, Event]] = []
        """(index of the frame that produced it, event)."""

    def push(self, frames: int, probability: float) -> None:
        for _ in range(frames):
            self.count += 1
            frame = self.count.to_bytes(2, "little") * FRAME
            for event in self.segmenter.push(frame, probability):
                self.events.append((self.count, event))

    def of(self, kind: type) -> list[tuple[int, Event]]:
        return [(n, e) for n, e in self.events if isinstance(e, kind)]


def frames_in(pcm: bytes) -> set[int]:
    return {int.from_bytes(pcm[at : at + 2], "little") for at in range(0, len(pcm), 2 * FRAME)}


def test_a_complete_turn_ends_at_the_short_pause() -> None:
    model = ScriptedModel(0.9)
    stream = Stream(Segmenter(VAD, model))
    stream.push(10, 0.2)
    stream.push(30, 1.0)  # about a second of speech, frames 11-40
    stream.push(LONG_FRAMES + 5, 0.0)
    [(paused_at, paused)] = stream.of(Paused)
    [(ended_at, ended)] = stream.of(Ended)
    assert paused_at == 41
    assert ended_at == 40 + SHORT_FRAMES  # not 40 + LONG_FRAMES
    assert isinstance(ended, Ended) and isinstance(paused, Paused)
    assert ended.pcm == paused.pcm  # the speculative transcript is the final one
    # The model heard the utterance with its pause, once.
    [heard] = model.heard
    assert max(frames_in(heard)) == 40 + SHORT_FRAMES and 11 in frames_in(heard)


def test_an_incomplete_turn_waits_for_the_long_silence() -> None:
    model = ScriptedModel(0.1)
    stream = Stream(Segmenter(VAD, model))
    stream.push(30, 1.0)
    stream.push(LONG_FRAMES + 5, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + LONG_FRAMES
    assert len(model.heard) == 1  # judged once, at the short pause, not at every frame


def test_a_pause_mid_sentence_keeps_one_utterance() -> None:
    """"What is the weather like in" ... 0.7 s ... "Rome tomorrow?": the model finds the
    first part unfinished, so the pause does not end the turn; the second part is
    judged at its own pause."""
    verdicts = iter([0.1, 0.9])
    stream = Stream(Segmenter(VAD, lambda pcm: next(verdicts)))
    stream.push(30, 1.0)
    stream.push(round(0.7 * RATE / FRAME), 0.0)
    stream.push(20, 1.0)
    stream.push(LONG_FRAMES + 5, 0.0)
    [(_, ended)] = stream.of(Ended)
    assert isinstance(ended, Ended)
    assert {1, 30, 31, 52, 72} <= frames_in(ended.pcm)  # both parts and the pause between
    assert len(stream.of(Began)) == 1 and len(stream.of(Paused)) == 2



def test_a_question_that_went_on_after_a_pause_is_judged_as_if_said_without_it() -> None:
    """Issue 29: Smart Turn hears a pause inside the utterance as a speaker still looking
    for words, so "Set a timer for ... ten minutes" waited the long silence. At the second
    pause it hears the utterance with the first pause cut to ``short_silence`` (its start
    kept): both parts whole, the rest of that pause gone. The final keeps the pause."""
    pause = round(0.7 * RATE / FRAME)
    model = ScriptedModel(0.1)
    stream = Stream(Segmenter(VAD, model))
    stream.push(30, 1.0)  # frames 1-30
    stream.push(pause, 0.0)  # 31-52: judged unfinished at its short pause
    stream.push(20, 1.0)  # 53-72
    stream.push(SHORT_FRAMES, 0.0)
    first, second = model.heard
    assert set(range(31, 31 + SHORT_FRAMES)) <= frames_in(first)  # the first pause as is
    kept = round(VAD.short_silence * RATE)  # samples: frames 31-36 and part of 37
    heard = frames_in(second)
    assert set(range(1, 37)) | set(range(53, 73)) <= heard
    assert not heard & set(range(38, 53)), "the pause beyond the short one was heard"
    assert len(second) == 2 * (30 * FRAME + kept + (20 + SHORT_FRAMES) * FRAME)
    stream.push(LONG_FRAMES, 0.0)
    [(_, ended)] = stream.of(Ended)
    assert isinstance(ended, Ended) and set(range(31, 53)) <= frames_in(ended.pcm)

def test_speech_after_a_closed_turn_starts_the_next_turn_whole() -> None:
    model = ScriptedModel(0.9)
    stream = Stream(Segmenter(VAD, model))
    stream.push(30, 1.0)  # frames 1-30
    stream.push(SHORT_FRAMES + 3, 0.0)  # the turn closes at the short pause
    resumed = stream.count + 1
    stream.push(20, 1.0)  # "...tomorrow", after the close
    stream.push(LONG_FRAMES, 0.0)
    first, second = (e for _, e in stream.of(Ended))
    assert isinstance(first, Ended) and isinstance(second, Ended)
    assert len(stream.of(Began)) == 2
    assert set(range(resumed, resumed + 20)) <= frames_in(second.pcm)  # none of it lost
    assert second.start == (resumed - 1) * FRAME
    assert first.end <= second.start


def test_silence_mode_never_asks_the_model() -> None:
    model = ScriptedModel(0.9)
    stream = Stream(Segmenter(VAD.model_copy(update={"end_of_turn": "silence"}), model))
    stream.push(30, 1.0)
    stream.push(LONG_FRAMES + 5, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + LONG_FRAMES
    assert model.heard == []


def test_a_sound_too_short_to_be_speech_is_not_judged() -> None:
    model = ScriptedModel(0.9)
    stream = Stream(Segmenter(VAD, model))
    stream.push(3, 1.0)  # 96 ms: under min_speech
    stream.push(LONG_FRAMES + 5, 0.0)
    assert stream.events == [] and model.heard == []


TEXT = VAD.model_copy(update={"end_of_turn": "model+text"})


def test_with_the_words_a_complete_turn_ends_once_its_guess_has_come() -> None:
    stream = Stream(Segmenter(TEXT, ScriptedModel(0.9)))
    stream.push(30, 1.0)
    stream.push(SHORT_FRAMES + 3, 0.0)
    assert stream.of(Ended) == []  # the model agrees, the words have not come
    [(_, paused)] = stream.of(Paused)
    assert isinstance(paused, Paused)
    stream.segmenter.endpointer.heard(paused.end, "What is the capital of Australia?", "en")
    stream.push(1, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + SHORT_FRAMES + 4


def paused_with_guess(probability: float, guess: str) -> Stream:
    """Speech, then the start of a pause whose guess ``guess`` has come."""
    stream = Stream(Segmenter(TEXT, ScriptedModel(probability)))
    stream.push(30, 1.0)
    stream.push(2, 0.0)
    [(_, paused)] = stream.of(Paused)
    assert isinstance(paused, Paused)
    stream.segmenter.endpointer.heard(paused.end, guess, "en")
    return stream


@pytest.mark.parametrize("probability", [0.9, 0.2])
def test_with_the_words_a_guess_that_stops_mid_sentence_waits_past_the_long_silence(
    probability: float,
) -> None:
    """Whatever the audio model says, "... like in" waits the longest: a pause of a
    second while looking for a word must not cut the question in two."""
    stream = paused_with_guess(probability, "What is the weather like in.")
    stream.push(LONG_FRAMES + 3, 0.0)
    assert stream.of(Ended) == []
    stream.push(LONGEST_FRAMES, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + LONGEST_FRAMES


def test_with_the_words_a_finished_guess_the_model_doubts_ends_at_the_long_silence() -> None:
    stream = paused_with_guess(0.2, "What is the capital of Australia?")
    stream.push(LONG_FRAMES + 5, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + LONG_FRAMES


def test_with_the_words_a_guess_the_stt_left_open_waits_for_the_long_silence() -> None:
    """The model hears "Send a message to my brother" finished; Whisper wrote no full
    stop: the turn waits for ``[vad] silence``, as a doubtful one does, and no longer."""
    stream = paused_with_guess(0.9, "Send a message to my brother")
    stream.push(LONG_FRAMES - 3, 0.0)
    assert stream.of(Ended) == []
    stream.push(5, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + LONG_FRAMES


def test_with_the_words_a_guess_without_its_mark_ends_early_when_the_model_is_sure() -> None:
    """"set a timer for 10 minutes": Whisper wrote no full stop, but Smart Turn heard the
    question finished at 0.98 (issue 29's slow turns): it ends at the short pause, as a
    guess with its mark does."""
    stream = paused_with_guess(0.99, "set a timer for 10 minutes")
    stream.push(SHORT_FRAMES + 2, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + SHORT_FRAMES


def test_with_the_words_a_guess_that_trails_off_waits_however_sure_the_model() -> None:
    """"Send a message to my brother...": Whisper heard the sentence go on; that outweighs
    the model."""
    stream = paused_with_guess(0.99, "Send a message to my brother...")
    stream.push(LONG_FRAMES - 3, 0.0)
    assert stream.of(Ended) == []
    stream.push(5, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 30 + LONG_FRAMES


def test_with_the_words_a_guess_of_an_earlier_pause_does_not_count() -> None:
    stream = Stream(Segmenter(TEXT, ScriptedModel(0.9)))
    stream.push(30, 1.0)
    stream.push(2, 0.0)
    [(_, earlier)] = stream.of(Paused)
    stream.push(10, 1.0)  # speech resumed: the guess is of a part of the question
    assert isinstance(earlier, Paused)
    stream.segmenter.endpointer.heard(earlier.end, "What is the capital", "en")
    stream.push(LONG_FRAMES + 5, 0.0)
    [(ended_at, _)] = stream.of(Ended)
    assert ended_at == 42 + LONG_FRAMES


def test_without_the_model_file_turns_end_after_the_long_silence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A venv set up without bootstrap lacks pipecat-ai's model file: the mic still starts,
    and its turns end at ``[vad] silence`` instead of at the model's short pause."""
    import importlib.util

    from hearing import smart_turn
    from hearing.endpointing import load_turn_model

    real = importlib.util.find_spec
    monkeypatch.setattr(
        smart_turn.importlib.util, "find_spec",
        lambda name, *a: None if name == "pipecat" else real(name, *a),
    )
    assert load_turn_model(VadConfig(end_of_turn="model+text")) is None
    monkeypatch.undo()
    assert load_turn_model(VadConfig(end_of_turn="model+text")) is not None
