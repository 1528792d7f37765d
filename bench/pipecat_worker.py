"""Pipecat's default end of turn on the clips ``bench/pipecat_turn.py`` wrote: run by the
Python of the venv that bench made for Pipecat, never by the project's (it imports only
Pipecat, numpy and the standard library).

    python bench/pipecat_worker.py CLIPS.npz OUT.json

Pipecat's defaults (``default_user_turn_stop_strategies``: a
``TurnAnalyzerUserTurnStopStrategy`` over ``LocalSmartTurnAnalyzerV3``, with
``SileroVADAnalyzer``'s ``VADParams``: confidence 0.7, start 0.2 s, stop 0.2 s): when
Silero's stop fires, Smart Turn hears the turn so far; "complete" ends the turn there,
otherwise the turn goes on until speech resumes (judged again at its next stop) or
Smart Turn's ``stop_secs`` (3 s) of silence end it. The strategy also waits for a
transcript; here, as in ``bench/endpointing.py``, the transcript is taken to be there at
once, so only the decisions are compared. Audio goes in 20 ms chunks, as a transport
sends it, on a clock of samples (the analyzer keeps its buffer by time), so the
decisions are those of live audio without waiting for it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np
from pipecat.audio.turn.base_turn_analyzer import EndOfTurnState
from pipecat.audio.turn.smart_turn import base_smart_turn
from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADState

RATE = 16000
CHUNK = 320
"""Samples per chunk: 20 ms."""


class SampleClock:
    """The analyzer's ``time.monotonic``: seconds of audio heard, not of the wall."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


CLOCK = SampleClock()
base_smart_turn.time = types.SimpleNamespace(  # type: ignore[assignment]
    monotonic=CLOCK.monotonic, perf_counter=time.perf_counter)


async def decisions(pcm: bytes, turn: LocalSmartTurnAnalyzerV3) -> dict[str, Any]:
    """The sample positions where Pipecat's defaults end a turn in ``pcm`` (16 kHz
    PCM16), and the CPU seconds of each Smart Turn decision."""
    vad = SileroVADAnalyzer(sample_rate=RATE)
    vad.set_sample_rate(RATE)
    turn.clear()
    speaking = False
    ends: list[int] = []
    costs: list[float] = []
    for at in range(0, len(pcm) - 2 * CHUNK + 1, 2 * CHUNK):
        chunk = pcm[at : at + 2 * CHUNK]
        position = at // 2 + CHUNK
        CLOCK.now = position / RATE
        state = await vad.analyze_audio(chunk)
        if state == VADState.SPEAKING and not speaking:
            speaking = True
            turn.update_vad_start_secs(vad.params.start_secs)
        elif state == VADState.QUIET and speaking:  # VADUserStoppedSpeakingFrame
            speaking = False
            began = time.process_time()
            verdict, _ = await turn.analyze_end_of_turn()
            costs.append(time.process_time() - began)
            if verdict == EndOfTurnState.COMPLETE:
                ends.append(position)
        if turn.append_audio(chunk, speaking) == EndOfTurnState.COMPLETE:
            ends.append(position)  # stop_secs of silence
    await vad.cleanup()
    return {"ends": ends, "costs": costs}


async def main(clips: Path, out: Path) -> None:
    turn = LocalSmartTurnAnalyzerV3()
    turn.set_sample_rate(RATE)
    with np.load(clips) as data:
        names = sorted(data.files, key=lambda name: int(name[1:]))
        results = [await decisions(data[name].tobytes(), turn) for name in names]
    import pipecat.audio.vad.vad_analyzer as vad_analyzer

    out.write_text(json.dumps({
        "clips": results,
        "defaults": {"vad_stop_secs": vad_analyzer.VAD_STOP_SECS,
                     "vad_start_secs": vad_analyzer.VAD_START_SECS,
                     "vad_confidence": vad_analyzer.VAD_CONFIDENCE,
                     "smart_turn_stop_secs": turn.params.stop_secs},
    }))


if __name__ == "__main__":
    from loguru import logger

    logger.remove()  # a line per chunk otherwise
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
