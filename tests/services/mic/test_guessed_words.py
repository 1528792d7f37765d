"""The mic reads the STT's guesses: with ``end_of_turn = "model+text"`` a finished question
ends at the short pause once its guess has come, not at the long silence."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np

from bus.client import Bus
from bus.messages import SpeculativeTranscript, Utterance
from services.base.names import STT
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.pauses import RATE, speech16
from tests.helpers.processes import Process
from tests.helpers.speech import write_wav

FIRST = "What is the capital of Australia?"
SECOND = "And of Italy?"
LONG_SILENCE = 3.0
"""[vad] silence here: far from the short pause, so that the guess has seconds to come."""
GAP = 2.0
"""Silence between the two questions: past the short pause, short of the long silence."""


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE), np.float32)


def test_a_finished_question_ends_at_the_short_pause_once_its_guess_has_come(
    broker: Process, config_folder: ConfigFolder, tmp_path: Path
) -> None:
    """Two questions with a pause between them longer than the short pause and shorter than
    the long silence: two turns only if the first ended at the short pause, which it may
    only once the STT's guess of it has come."""
    config_folder.write(f'[vad]\nend_of_turn = "model+text"\nsilence = {LONG_SILENCE}\n')
    first = speech16(FIRST)
    audio = np.concatenate([silence(0.5), first, silence(GAP), speech16(SECOND), silence(0.5)])
    wav = write_wav(tmp_path / "two.wav", audio, RATE)
    guesses: dict[str, str] = {}  # turn: the sentence guessed for each of its partials

    async def body(stt: Bus) -> list[Utterance]:
        """The STT's stand-in: a guess (a whole sentence) for each partial utterance."""
        stt.subscribe(Utterance.TOPIC)
        # Paced in real time: the guess must come back while the audio's pause runs.
        mic = Process("services.mic", *config_folder.args(), "--wav", str(wav),
                      log_dir=tmp_path)
        finals: list[Utterance] = []
        deadline = time.monotonic() + 60
        while mic.popen.poll() is None and time.monotonic() < deadline:
            msg = await stt.recv(timeout=0.5)
            if not isinstance(msg, Utterance):
                continue
            if not msg.partial:
                finals.append(msg)
            else:
                text = guesses.setdefault(msg.turn or "", SECOND if guesses else FIRST)
                stt.publish(SpeculativeTranscript(text=text, lang="en", turn=msg.turn,
                                                  speech_end=msg.speech_end))
        assert await asyncio.to_thread(mic.popen.wait, 10) == 0, mic.output()
        while (msg := await stt.recv(timeout=1)) is not None:
            if isinstance(msg, Utterance) and not msg.partial:
                finals.append(msg)
        return finals

    finals = with_buses(config_folder.endpoints, [STT], body)
    assert len(finals) == 2, [f.duration for f in finals]
    # The first turn holds the first question alone (with the pre-roll before it), not the
    # gap and the second question after it.
    first_seconds = len(first) / RATE
    assert first_seconds < finals[0].duration < first_seconds + GAP / 2
    assert finals[0].turn != finals[1].turn
