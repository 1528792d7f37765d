"""``python -m services.mic --wav``: replayed files through the real service and a real bus."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bus.messages import SpeechEnded, SpeechStarted, Utterance
from tests.conftest import ConfigFolder
from tests.helpers.mic_replay import replayed
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
