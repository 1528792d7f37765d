"""The wake word (``[wake]``, microWakeWord okay_nabu) on synthesized clips.

    python -m bench.wake [--json]

Detection rate on "Okay Nabu" said by Kokoro (five voices, three speeds) and
espeak-ng (three voices, three speeds), clean and in white noise at 20, 10 and
5 dB SNR; false accepts per hour on Kokoro speech without the word; CPU seconds
per second of audio; the time from the end of the word (its last loud sample)
to the detection, in audio time (the earcon's stream starts a few ms later).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from services.mic.convert import decode_file
from services.mic.vad import FRAME, RATE
from services.mic.wake import WakeDetector
from settings.schema import WakeConfig
from tests.helpers.speech import _kokoro, speech_bounds, write_wav

WORD = "Okay Nabu."
KOKORO_VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")
ESPEAK_VOICES = ("en-us", "en", "en-us+f3")
SPEEDS = (0.9, 1.0, 1.15)
SNRS = (None, 20, 10, 5)
OTHER = (
    "What is the weather like in Rome tomorrow?", "Set a timer for ten minutes.",
    "Tell me a joke about computers.", "How far is the moon from the earth?",
    "The quick brown fox jumps over the lazy dog.", "Turn the volume down a little.",
    "I think we should order pizza tonight.", "Remind me to call my mother at six.",
)


def kokoro(text: str, voice: str, speed: float) -> np.ndarray:
    samples, rate = _kokoro().create(text, voice=voice, lang="en-us", speed=speed)
    with tempfile.TemporaryDirectory() as folder:
        path = write_wav(Path(folder) / "k.wav", np.asarray(samples, np.float32), rate)
        return pcm_of(path)


def espeak(text: str, voice: str, speed: float) -> np.ndarray:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "e.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(round(160 * speed)), "-w",
                        str(path), text], check=True, timeout=30)
        return pcm_of(path)


def pcm_of(path: Path) -> np.ndarray:
    return np.frombuffer(b"".join(decode_file(path)), "<i2").astype(np.float32) / 32768


def noisy(speech: np.ndarray, snr: float | None, rng: np.random.Generator) -> np.ndarray:
    audio = np.concatenate([np.zeros(RATE // 2), speech, np.zeros(RATE)])
    if snr is not None:
        power = float(np.mean(speech**2))
        audio = audio + rng.normal(0, np.sqrt(power / 10 ** (snr / 10)), len(audio))
    return audio


def detect(audio: np.ndarray) -> tuple[list[float], float]:
    """Detection times (s) and the CPU seconds it took."""
    detector = WakeDetector(WakeConfig())
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
    cpu = time.process_time()
    hits = [(at + 2 * FRAME) / 2 / RATE for at in range(0, len(pcm), 2 * FRAME)
            if detector.hear(pcm[at : at + 2 * FRAME])]
    return hits, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    clips = [("kokoro", v, s, kokoro(WORD, v, s)) for v in KOKORO_VOICES for s in SPEEDS]
    clips += [("espeak", v, s, espeak(WORD, v, s)) for v in ESPEAK_VOICES for s in SPEEDS]
    rates: dict[str, dict[str, float]] = {}
    lags: list[float] = []
    cpu = audio_seconds = 0.0
    for snr in SNRS:
        for engine in ("kokoro", "espeak"):
            found = total = 0
            for name, _, _, speech in clips:
                if name != engine:
                    continue
                audio = noisy(speech, snr, rng)
                hits, spent = detect(audio)
                cpu, audio_seconds = cpu + spent, audio_seconds + len(audio) / RATE
                total += 1
                found += bool(hits)
                if hits and snr is None:
                    lags.append(hits[0] - (0.5 + speech_bounds(speech, RATE)[1]))
            rates.setdefault(engine, {})["clean" if snr is None else f"{snr} dB"] = found / total
    false_hits, speech_seconds = 0, 0.0
    for text in OTHER:
        for voice in KOKORO_VOICES:
            audio = noisy(kokoro(text, voice, 1.0), None, rng)
            hits, spent = detect(audio)
            false_hits += len(hits)
            speech_seconds += len(audio) / RATE
            cpu, audio_seconds = cpu + spent, audio_seconds + len(audio) / RATE
    result = {
        "detection_rate": rates,
        "false_accepts": false_hits,
        "speech_without_word_s": round(speech_seconds, 1),
        "false_accepts_per_hour": round(false_hits * 3600 / speech_seconds, 1),
        "cpu_s_per_audio_s": round(cpu / audio_seconds, 4),
        "word_end_to_detection_s": {
            "p50": round(float(np.percentile(lags, 50)), 3),
            "p95": round(float(np.percentile(lags, 95)), 3),
        },
    }
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
