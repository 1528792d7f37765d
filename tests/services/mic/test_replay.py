"""``python -m services.mic --wav``: replayed files through the real service and a real bus."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bus.messages import SpeechEnded, SpeechResumed, SpeechStarted, Utterance
from tests.conftest import ConfigFolder
from tests.helpers.mic_replay import replayed
from tests.helpers.pauses import RATE, split
from tests.helpers.processes import Process
from tests.helpers.speech import read_wav, spoken, write_wav

QUESTION = "What is the weather like in Rome tomorrow?"
SECOND = "Set a timer for ten minutes."


def resampled(samples: np.ndarray, rate: int, to: int) -> np.ndarray:
    times = np.arange(round(len(samples) * to / rate)) / to
    return np.interp(times, np.arange(len(samples)) / rate, samples).astype(np.float32)


def test_files_of_any_rate_mono_or_stereo_come_out_as_utterances(
    broker: Process, config_folder: ConfigFolder, tmp_path: Path
) -> None:
    question, rate = read_wav(spoken(QUESTION))
    second, _ = read_wav(spoken(SECOND))
    pad = np.zeros(rate // 2, dtype=np.float32)
    stereo = resampled(np.concatenate([pad, question, pad]), rate, 44100)
    both = np.stack([stereo, stereo], 1).ravel()
    stereo_file = write_wav(tmp_path / "stereo.wav", both, 44100, channels=2)
    mono_file = write_wav(tmp_path / "mono.wav", resampled(second, rate, 8000), 8000)

    got = replayed(config_folder, [stereo_file, mono_file], tmp_path)
    kinds = [(type(m).__name__, getattr(m, "partial", None)) for m in got]
    one = [("SpeechStarted", None), ("Utterance", True), ("SpeechEnded", None),
           ("Utterance", False)]
    assert kinds == one + one
    first, second_turn = got[0].turn, got[4].turn
    assert first and second_turn and first != second_turn
    assert all(m.turn == first for m in got[:4]) and all(m.turn == second_turn for m in got[4:])
    finals = [m for m in got if isinstance(m, Utterance) and not m.partial]
    assert all(u.rate == 16000 and len(u.pcm) == round(u.duration * 16000) * 2 for u in finals)
    # The first file has 0.5 s of silence before speech (so a full pre-roll of 0.29 s); the
    # second starts speaking at once, and a new file never inherits the last one's audio.
    assert abs(finals[0].duration - (len(question) / rate + 0.29)) < 0.15
    assert abs(finals[1].duration - len(second) / rate) < 0.15
    ended = [m for m in got if isinstance(m, SpeechEnded)]
    assert [e.speech_end for e in ended] == [u.speech_end for u in finals]
    # Replay times are wall-clock equivalents: the second file started after the first.
    assert 2.0 < ended[1].speech_end - ended[0].speech_end < 4.0
    assert isinstance(got[0], SpeechStarted)


def test_a_file_that_is_not_audio_fails_with_its_name(
    broker: Process, config_folder: ConfigFolder, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.wav"
    bad.write_text("not audio")
    mic = Process("services.mic", *config_folder.args(), "--wav", str(bad), "--fast",
                  log_dir=tmp_path)
    assert mic.popen.wait(30) == 2
    assert f"{bad}: cannot" in mic.output()


def test_speech_that_goes_on_after_a_partial_says_so_before_the_next_one(
    broker: Process, config_folder: ConfigFolder, tmp_path: Path
) -> None:
    """Issue 29: the partial at a pause inside the question is stale once the speech goes
    on; ``SpeechResumed`` says so at once (the STT stops its guess, the dialogue the answer
    it started), between that partial and the next."""
    paused = split("Set a timer for ten minutes.", 3)
    pad = np.zeros(RATE // 2, dtype=np.float32)
    clip = write_wav(tmp_path / "paused.wav",
                     np.concatenate([pad, paused.with_pause(0.5), pad, pad, pad]), RATE)

    got = replayed(config_folder, [clip], tmp_path)
    kinds = [type(m).__name__ for m in got]
    assert kinds[0] == "SpeechStarted" and kinds[-2:] == ["SpeechEnded", "Utterance"], kinds
    resumed = [m for m in got if isinstance(m, SpeechResumed)]
    partials = [m for m in got if isinstance(m, Utterance) and m.partial]
    assert resumed and len(partials) == len(resumed) + 1, kinds
    for went_on in resumed:  # right after the partial it makes stale
        stale = got[got.index(went_on) - 1]
        assert isinstance(stale, Utterance) and stale.partial
        assert stale.speech_end < went_on.resumed_at < partials[-1].speech_end
        assert went_on.turn == got[0].turn
    # The pause itself (0.5 s) is among them: the first partial is the words before it.
    assert any(went_on.resumed_at - partials[n].speech_end > 0.4
               for n, went_on in enumerate(resumed))
