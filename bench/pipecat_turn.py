"""Benchmark: our end of turn beside Pipecat's default one, on the same clips, in one run.

    python -m bench.pipecat_turn [--pauses 0.4,0.55,0.7,0.85,1.0] [--questions N]
                                 [--pipecat 1.14.0] [--json FILE]

The clips are ``bench/endpointing.py``'s: each question spoken whole (pause 0) and with a
pause cut in near its middle. Ours: the mic's segmenter with the defaults (Silero, Smart
Turn at the 0.2 s pause and the words of the embedded Whisper's guess, given at once;
``--guess perfect``: a perfect STT's words, without punctuation). Pipecat's:
``bench/pipecat_worker.py``, run by a venv this bench makes for Pipecat under
``.cache/pipecat-bench/`` (``pip install "pipecat-ai[silero]==VERSION"`` the first time,
then reused): the project never installs or imports Pipecat itself. For each: the share
of clips with a pause cut in two, and how long after the last sample of speech a
finished question's turn ends (a decision only: no STT, no answer, no sound card).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.endpointing import (
    LEAD,
    QUESTIONS,
    VOICES,
    CountingModel,
    Guess,
    WhisperGuess,
    perfect,
    turns,
)
from hearing.vad import RATE
from settings.schema import VadConfig
from tests.helpers.pauses import split
from tests.helpers.processes import ROOT

CACHE = ROOT / ".cache" / "pipecat-bench"
WORKER = Path(__file__).with_name("pipecat_worker.py")
TAIL = 4.0
"""Silence after each clip: more than Pipecat's longest wait (Smart Turn's 3 s after
Silero's 0.2 s stop) and ours."""
INSTALL_TIMEOUT = 1800
RUN_TIMEOUT = 3600


def pipecat_python(version: str) -> Path:
    """The Python of a venv that holds ``pipecat-ai[silero]==version``, made the first time."""
    venv = CACHE / f"venv-{version}"
    python = venv / "bin" / "python"
    if not (venv / "installed").is_file():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True,
                       timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                        f"pipecat-ai[silero]=={version}"], check=True, timeout=INSTALL_TIMEOUT)
        (venv / "installed").write_text(version)
    return python


def clips(pauses: list[float], per_language: int | None) -> list[dict[str, Any]]:
    """Every question, whole (pause 0) and with each pause, as 16 kHz float audio."""
    out = []
    for lang, questions in QUESTIONS.items():
        for voice in VOICES:
            for text, count in questions[:per_language]:
                question = split(text, count, lang, voice)
                prefix = text[:count] if lang == "ja" else " ".join(text.split()[:count])
                for pause in [0.0, *pauses]:
                    audio = question.with_pause(pause)
                    middle = len(question.before) + round(pause * RATE / 2)
                    said = [(middle, prefix, lang)] if pause else []
                    out.append({"lang": lang, "voice": voice, "text": text, "pause": pause,
                                "audio": audio, "said": [*said, (len(audio) + RATE, text, lang)]})
    return out


def padded(audio: np.ndarray) -> np.ndarray:
    """A clip as both hear it: ``LEAD`` of silence, the speech, ``TAIL`` of silence (PCM16)."""
    stream = np.concatenate([np.zeros(round(LEAD * RATE)), audio, np.zeros(round(TAIL * RATE))])
    return (np.clip(stream, -1, 1) * 32767).astype("<i2")


def ours(clip: dict[str, Any], model: CountingModel, stt: Guess | None) -> list[int]:
    """``stt``: the guesses Whisper makes (None: a perfect STT's)."""
    # ``turns`` pads the clip itself, with ``LEAD`` in front as here
    return [closed for _, closed, _ in turns(clip["audio"], VadConfig(), model,
                                          stt or perfect(clip["said"]), tail=TAIL)]


def pipecat(made: list[dict[str, Any]], python: Path) -> dict[str, Any]:
    folder = CACHE / "run"
    folder.mkdir(parents=True, exist_ok=True)
    data, out = folder / "clips.npz", folder / "decisions.json"
    np.savez(data, **{f"c{n}": padded(clip["audio"]) for n, clip in enumerate(made)})
    subprocess.run([str(python), str(WORKER), str(data), str(out)], check=True,
                   timeout=RUN_TIMEOUT)
    return dict(json.loads(out.read_text()))


def summary(made: list[dict[str, Any]], ends: list[list[int]]) -> dict[str, Any]:
    """Per language: clips with a pause cut in two, and how long after the end of speech
    each finished question's (last) turn ended."""
    rows: dict[str, dict[str, Any]] = {}
    for clip, closed in zip(made, ends, strict=True):
        row = rows.setdefault(clip["lang"], {"clips": 0, "split": 0, "close": []})
        if clip["pause"]:
            row["clips"] += 1
            row["split"] += len(closed) > 1
        elif closed:
            speech_end = round(LEAD * RATE) + len(clip["audio"])
            row["close"].append((closed[-1] - speech_end) / RATE)
    return rows


def show(name: str, rows: dict[str, dict[str, Any]], costs: list[float]) -> None:
    print(f"  {name}:")
    every: list[float] = []
    for lang, row in rows.items():
        close = sorted(row["close"])
        every += close
        print(f"    {lang:<6} cut in two {row['split']}/{row['clips']}; a finished question's "
              f"turn ended {statistics.median(close):.2f} s after its speech (median), "
              f"{close[-1]:.2f} s max")
    split_ = sum(row["split"] for row in rows.values())
    clips_ = sum(row["clips"] for row in rows.values())
    every.sort()
    slow = sum(c >= 1.0 for c in every)
    print(f"    all    cut in two {split_}/{clips_} = {split_ / clips_:.1%}; finished: "
          f"{statistics.median(every):.2f} s median, "
          f"{every[min(len(every) - 1, int(0.9 * len(every)))]:.2f} s p90, "
          f"{slow}/{len(every)} waited 1 s or more")
    if costs:
        print(f"    Smart Turn: {len(costs)} decisions, CPU {statistics.median(costs) * 1000:.0f}"
              f" ms median")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pipecat_turn", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pauses", default="0.4,0.55,0.7,0.85,1.0",
                        help="pauses mid-sentence, seconds")
    parser.add_argument("--questions", type=int, help="only the first N questions of each "
                        "language (a smoke test)")
    parser.add_argument("--pipecat", default="1.14.0", help="the pipecat-ai version compared")
    parser.add_argument("--guess", choices=("whisper", "perfect"), default="whisper",
                        help="our words at each pause: the embedded Whisper's (default, as "
                             "live) or a perfect STT's")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    began = time.time()
    python = pipecat_python(args.pipecat)
    made = clips([float(p) for p in args.pauses.split(",")], args.questions)
    model = CountingModel()
    stt = WhisperGuess([lang[:2] for lang in QUESTIONS]) if args.guess == "whisper" else None
    our_ends = [ours(clip, model, stt) for clip in made]
    theirs = pipecat(made, python)
    their_ends = [clip["ends"] for clip in theirs["clips"]]
    settings = VadConfig().model_dump(include={"silence", "short_silence", "end_of_turn",
                                               "end_of_turn_threshold"})
    print(f"{len(made)} clips; ours: {settings}, {args.guess} guesses; pipecat-ai {args.pipecat}: "
          f"{theirs['defaults']}")
    result = {"ours": summary(made, our_ends), "pipecat": summary(made, their_ends)}
    show("ours (defaults)", result["ours"], model.costs)
    show(f"Pipecat {args.pipecat} (defaults)", result["pipecat"],
         [c for clip in theirs["clips"] for c in clip["costs"]])
    print(f"  ({time.time() - began:.0f} s; load average "
          f"{[round(x, 2) for x in os.getloadavg()]})")
    if args.json:
        args.json.write_text(json.dumps({**result, "pipecat_defaults": theirs["defaults"]},
                                        indent=1))


if __name__ == "__main__":
    main()
