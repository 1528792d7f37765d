"""The wake word (``[wake]``, okay_nabu) on synthesized clips, for each engine.

    python -m bench.wake [--engine microwakeword|openwakeword] [--json]

Detection rate on "Okay Nabu" said by Kokoro (five voices) and espeak-ng (eight
voices), three speeds each, clean and in room noise (pink, brown, babble, a
television; white noise for comparison) at 20, 10 and 5 dB SNR; false accepts
per hour on over an hour of espeak speech and television-like audio without the
word, plus Kokoro sentences; each for the default sensitivity and a sweep of
``cutoff`` and ``window``; CPU seconds per second of audio; the time from the end
of the word (its last loud sample) to the detection, in audio time.

The model is run once per clip with a window of one, and its raw probabilities
are averaged afterwards, so every ``cutoff``/``window`` pair is judged on the
same run. Audio is made once and cached (``bench/wake_audio.py``). Both engines
hear the same clips, noises and speech without the word; microWakeWord scores
every 30 ms, openWakeWord every 80 ms (so its windows are shorter in count).
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from typing import Any

import numpy as np

from bench.wake_audio import ESPEAK_VOICES, NOISES, espeak, hour_without_word, kokoro, mixed
from hearing.denoise import Denoiser
from hearing.vad import FRAME, RATE
from hearing.wake import REFRACTORY, open_wake
from settings.schema import WakeConfig
from tests.helpers.speech import speech_bounds

WORD = "Okay Nabu."
KOKORO_VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")
SPEEDS = (0.9, 1.0, 1.15)
SNRS = (20, 10, 5)
SWEEPS = {  # engine: (seconds per score, cutoffs, windows, the engine's default pair)
    "microwakeword": (0.03, (0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9), (3, 4, 5), (0.85, 5)),
    "openwakeword": (0.08, (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), (1, 2, 3), (0.5, 1)),
}
STEP, CUTOFFS, WINDOWS, DEFAULT = SWEEPS["microwakeword"]
"""The engine of this run (``--engine`` sets them)."""
ROOM = ("pink", "brown", "babble", "television")
NEAR = (
    "Okay, now let us begin.", "Okay, but not now.", "I saw Naboo in the film.",
    "A bamboo chair.", "Nabucco is an opera by Verdi.", "Okay, nah, I am good.",
    "Okay, no problem.", "That is a taboo.", "Hey, nice to meet you, Nadia.",
)
"""Sentences that sound like part of the word: harder than everyday speech."""
OTHER = (
    "What is the weather like in Rome tomorrow?", "Set a timer for ten minutes.",
    "Tell me a joke about computers.", "How far is the moon from the earth?",
    "The quick brown fox jumps over the lazy dog.", "Turn the volume down a little.",
    "I think we should order pizza tonight.", "Remind me to call my mother at six.",
)
ENGINE = ["microwakeword"]
cpu_spent = [0.0, 0.0]
"""CPU seconds and audio seconds run through the model."""


class Trace:
    """An engine's raw scores of a clip, one per model run, and the CPU they cost."""

    model: Any
    features: Any

    def __call__(self, audio: np.ndarray, denoise: bool = False) -> np.ndarray:
        self.model.reset()
        self.features.reset()
        pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
        cpu = time.process_time()
        if denoise:
            pcm = Denoiser()(pcm)
        out = self.scores(pcm)
        cpu_spent[0] += time.process_time() - cpu
        cpu_spent[1] += len(audio) / RATE
        return np.asarray(out)

    def scores(self, pcm: bytes) -> list[float]:
        raise NotImplementedError


class MicroTrace(Trace):
    """microWakeWord's raw probability every 30 ms."""

    def __init__(self) -> None:
        from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures, Model

        self.model = MicroWakeWord.from_builtin(Model.OKAY_NABU)
        self.model.sliding_window_size = 1
        self.model._probabilities = collections.deque(maxlen=1)
        self.features = MicroWakeWordFeatures()

    def scores(self, pcm: bytes) -> list[float]:
        out = []
        for features in self.features.process_streaming(pcm):
            probability = self.model.process_streaming_prob(features)
            if probability is not None and not self.model._features:  # the model ran
                out.append(probability)
        return out


CHUNK = 2 * 1280
"""Bytes fed to openWakeWord at a time: 80 ms, as the mic's blocks reach it."""


class OpenTrace(Trace):
    """openWakeWord's raw score every 80 ms."""

    def __init__(self) -> None:
        from pyopen_wakeword import Model, OpenWakeWord, OpenWakeWordFeatures

        self.model = OpenWakeWord.from_builtin(Model.OKAY_NABU)
        self.features = OpenWakeWordFeatures.from_builtin()

    def scores(self, pcm: bytes) -> list[float]:
        return [score for at in range(0, len(pcm), CHUNK)  # its buffer holds 10 s at most
                for features in self.features.process_streaming(pcm[at : at + CHUNK])
                for score in self.model.process_streaming(features)]


def detections(probabilities: np.ndarray, cutoff: float, window: int) -> int:
    """How many times the word is heard, as the detector would (mean of ``window``
    probabilities over ``cutoff``, then deaf for the refractory time)."""
    means = np.convolve(probabilities, np.ones(window) / window, "valid")
    count, quiet_until = 0, -1
    for at in np.flatnonzero(means > cutoff):
        if at >= quiet_until:
            count += 1
            quiet_until = int(at) + round(REFRACTORY / STEP)
    return count


def clips() -> list[tuple[str, np.ndarray]]:
    made = [("kokoro", kokoro(WORD, v, s)) for v in KOKORO_VOICES for s in SPEEDS]
    return made + [("espeak", espeak(WORD, v, s)) for v in ESPEAK_VOICES for s in SPEEDS]


Traces = dict[str, dict[str, list[np.ndarray]]]


def detection(trace: Trace, rng: np.random.Generator, denoise: bool) -> Traces:
    """Traces of every clip by engine and by condition ("clean", "pink 10 dB", ...)."""
    out: Traces = {}
    for engine, speech in clips():
        by = out.setdefault(engine, {})
        by.setdefault("clean", []).append(trace(mixed(speech, None, None), denoise))
        for kind, make in NOISES.items():
            noise = make(len(speech) + 2 * RATE, rng)
            for snr in SNRS:
                audio = mixed(speech, noise, snr)
                by.setdefault(f"{kind} {snr} dB", []).append(trace(audio, denoise))
    return out


def rates(heard: Traces, cutoff: float, window: int) -> dict[str, dict[str, float]]:
    return {engine: {condition: round(float(np.mean([detections(t, cutoff, window) > 0
                                                     for t in traces])), 2)
                     for condition, traces in by.items()} for engine, by in heard.items()}


def room_10_db(heard: Traces, cutoff: float, window: int) -> list[float]:
    """Kokoro's and espeak's detection rate at 10 dB, averaged over the four room noises."""
    by_engine = rates(heard, cutoff, window)
    return [round(float(np.mean([by_engine[e][f"{k} 10 dB"] for k in ROOM])), 2)
            for e in ("kokoro", "espeak")]


def highest(traces: list[np.ndarray], window: int) -> float:
    """The highest mean of ``window`` probabilities anywhere in ``traces``."""
    return round(max(float(np.convolve(t, np.ones(window) / window, "valid").max())
                     for t in traces if len(t) >= window), 3)


def lags(window: int) -> list[float]:
    """End of the word to the detection (s, audio time), clean clips, as the mic feeds it."""
    out = []
    for _, speech in clips():
        detector = open_wake(WakeConfig(engine=ENGINE[0], window=window))
        audio = mixed(speech, None, None)
        pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
        for at in range(0, len(pcm), 2 * FRAME):
            if detector.hear(pcm[at : at + 2 * FRAME]):
                out.append((at + 2 * FRAME) / 2 / RATE - (0.5 + speech_bounds(speech, RATE)[1]))
                break
    return out


def front_end(trace: Trace, rng: np.random.Generator, denoise: bool) -> dict[str, Any]:
    cpu_spent[:] = [0.0, 0.0]
    heard = detection(trace, rng, denoise)
    audio = [*hour_without_word(rng), *(mixed(kokoro(text, v, 1.0), None, None)
                                        for text in OTHER for v in KOKORO_VOICES)]
    without = [trace(part, denoise) for part in audio]
    hours = sum(len(part) for part in audio) / RATE / 3600
    near = [trace(mixed(say(text, voice, 1.0), None, None), denoise) for text in NEAR
            for say, voices in ((kokoro, KOKORO_VOICES), (espeak, ESPEAK_VOICES))
            for voice in voices]

    def false_accepts(cutoff: float, window: int) -> float:
        return round(sum(detections(t, cutoff, window) for t in without) / hours, 2)

    return {
        "default": {"cutoff": DEFAULT[0], "window": DEFAULT[1],
                    "detection_rate": rates(heard, *DEFAULT),
                    "room_10_db (kokoro, espeak)": room_10_db(heard, *DEFAULT),
                    "false_accepts_per_hour": false_accepts(*DEFAULT),
                    "near_words_heard": sum(detections(t, *DEFAULT) > 0 for t in near)},
        "audio_without_word_h": round(hours, 2),
        "highest_score_without_word": highest(without, DEFAULT[1]),
        "near_word_clips": len(near),
        "highest_score_near_words": highest(near, DEFAULT[1]),
        "sweep": {f"cutoff {c} window {w}": {
            "room_10_db (kokoro, espeak)": room_10_db(heard, c, w),
            "clean (kokoro, espeak)": [r["kokoro"]["clean"], r["espeak"]["clean"]],
            "false_accepts_per_hour": false_accepts(c, w),
            "near_words_heard": sum(detections(t, c, w) > 0 for t in near),
        } for c in CUTOFFS for w in WINDOWS for r in [rates(heard, c, w)]},
        "cpu_s_per_audio_s": round(cpu_spent[0] / cpu_spent[1], 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=list(SWEEPS), default="microwakeword")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    global STEP, CUTOFFS, WINDOWS, DEFAULT
    STEP, CUTOFFS, WINDOWS, DEFAULT = SWEEPS[args.engine]
    ENGINE[0] = args.engine
    trace: Trace = MicroTrace() if args.engine == "microwakeword" else OpenTrace()
    result = {name: front_end(trace, np.random.default_rng(0), denoise)
              for name, denoise in (("plain", False), ("denoised", True))}
    result["word_end_to_detection_s"] = {
        f"window {w}": {"p50": round(float(np.percentile(d, 50)), 3),
                        "p95": round(float(np.percentile(d, 95)), 3), "heard": len(d)}
        for w in WINDOWS for d in [lags(w)]}
    result["engine"] = args.engine
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
