"""Echo cancellation on the simulated room: ERLE, the delay found, and self-interruptions.

Kokoro speech (the tests' cached phrases) is played through the room of
``tests/helpers/room.py`` (delayed, low-passed, attenuated, with noise) and
cleaned by the mic's canceller exactly as the mic does it, with the reference
timed as the speaker sends it. ERLE is the mic's echo power over what is left,
after the first 5 s (the filter converging); with noise, what is left includes
the noise, so the noise-free figure is the canceller's. Then Silero VAD runs on
the cleaned audio as the mic would: any onset (of the mic's shorter
``min_speech`` while the assistant speaks, ``services/mic/barge_in.py``) is a
self-interruption (barge-in) the assistant would have made.

    .venv/bin/python -m bench.echo [--minutes 5]
"""

from __future__ import annotations

import argparse
import time
import wave
from pathlib import Path

import numpy as np

from hearing.segmenter import Began, Segmenter
from hearing.vad import FRAME, RATE, load_scorer, to_float
from services.mic.barge_in import onset_min_speech
from services.mic.echo import EchoCanceller
from settings.schema import VadConfig
from tests.helpers.room import Room

SPEECH = Path(".cache/speech")
BLOCK = 512
SETTLE = 5 * RATE


def speech(seconds: float) -> np.ndarray:
    """Cached Kokoro phrases at 16 kHz, repeated to ``seconds``."""
    clips = []
    for path in sorted(SPEECH.glob("*.wav")):
        with wave.open(str(path)) as wav:
            data = np.frombuffer(wav.readframes(wav.getnframes()), "<i2").astype(np.float32)
            rate = wav.getframerate()
        count = int(len(data) * RATE / rate)
        clips.append(np.interp(np.arange(count) * rate / RATE, np.arange(len(data)), data))
    if not clips:
        raise SystemExit(f"no speech in {SPEECH}: run the tests once (they make it)")
    whole = np.concatenate(clips) / 32768
    return np.resize(whole, int(seconds * RATE)).astype(np.float32)


def run(played: np.ndarray, delay: float, noise: float, vad: bool) -> dict[str, float]:
    room = Room(delay, 0.3, noise)
    canceller = EchoCanceller()
    over_the_echo = onset_min_speech(VadConfig().min_speech, over_the_echo=True)
    segmenter = Segmenter(VadConfig(end_of_turn="silence", min_speech=over_the_echo))
    scorer = load_scorer("lite") if vad else None
    heard, cleaned, onsets, pending = [], [], 0, bytearray()
    start, cpu = 1000.0, 0.0
    for at in range(0, len(played) - BLOCK, BLOCK):
        block = played[at : at + BLOCK]
        canceller.played((block * 32767).astype("<i2").tobytes(), start + at / RATE)
        mic = np.clip(room.process(block), -1, 1)
        began = time.process_time()
        out, _ = canceller.clean((mic * 32767).astype("<i2").tobytes(), start + (at + BLOCK) / RATE)
        cpu += time.process_time() - began
        heard.append(mic)
        cleaned.append(np.frombuffer(out, "<i2").astype(np.float32) / 32768)
        if scorer is not None:
            pending += out
            while len(pending) >= 2 * FRAME:
                frame = bytes(pending[: 2 * FRAME])
                del pending[: 2 * FRAME]
                events = segmenter.push(frame, scorer(to_float(frame)))
                for event in events:
                    if isinstance(event, Began) and canceller.trusts(start + event.start / RATE):
                        onsets += 1
                        print(f"  onset at {event.start / RATE:.1f} s")
                    elif isinstance(event, Began):
                        segmenter.reset()  # what the mic does: adapting, not a barge-in
    mic_all, out_all = np.concatenate(heard), np.concatenate(cleaned)
    count = min(len(mic_all), len(out_all))
    erle = 10 * np.log10(np.mean(mic_all[SETTLE:count] ** 2) / np.mean(out_all[SETTLE:count] ** 2))
    return {"erle": float(erle), "delay_ms": 1000 * canceller.delay / RATE,
            "cpu": cpu / (len(played) / RATE), "onsets": onsets}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.0,
                        help="minutes of the assistant talking alone for self-interruptions")
    args = parser.parse_args()
    short = speech(40)
    print("delay  noise    ERLE     delay found  CPU (share of a core)")
    for delay in (0.02, 0.06, 0.12):
        for noise in (0.0, 0.002):
            r = run(short, delay, noise, vad=False)
            print(f"{1000 * delay:4.0f} ms {noise:.3f}  {r['erle']:5.1f} dB  "
                  f"{r['delay_ms']:5.0f} ms     {100 * r['cpu']:.2f}%")
    long = speech(60 * args.minutes)
    for delay in (0.02, 0.12):
        r = run(long, delay, 0.002, vad=True)
        print(f"talking alone {args.minutes:g} min, delay {1000 * delay:.0f} ms, noise 0.002: "
              f"{r['onsets']} speech onsets (self-interruptions), ERLE {r['erle']:.1f} dB")


if __name__ == "__main__":
    main()
