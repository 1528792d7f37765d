"""Audio for the wake word benchmark: the word, speech without it, and room noise.

Everything is 16 kHz mono float32, made once and kept under ``.cache/wake-bench``
(espeak-ng makes an hour of speech in a few minutes; Kokoro is slower, so it says
the word and a few sentences only). The noises stand for a room rather than a
lab: pink and brown noise (fans, traffic, the rumble of a house), babble (other
people talking) and a television (speech over music).
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from hearing.convert import decode_file
from hearing.vad import RATE
from tests.helpers.speech import CACHE, _kokoro, write_wav

FOLDER = CACHE / "wake-bench"
ESPEAK_VOICES = ("en-us", "en", "en-gb-x-rp", "en-us+f3", "en-us+m3", "en+f2", "en-029",
                 "en-gb-scotland")
SUBJECTS = ("the weather", "my sister", "the new phone", "dinner", "the football match",
            "this song", "the traffic", "our neighbour", "the garden", "the report",
            "the movie", "the train", "your computer", "the kitchen", "the price of bread")
VERBS = ("is much better than", "reminds me of", "was on the news with", "costs more than",
         "will arrive before", "sounds nothing like", "was late because of", "is next to")
ENDINGS = ("yesterday", "every morning", "in the afternoon", "at the weekend", "last year",
           "right now", "after the break", "before we go", "on channel four", "tonight")
SENTENCES_PER_VOICE_SPEED = 48


def cached(name: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    path = FOLDER / f"{hashlib.sha1(name.encode()).hexdigest()[:16]}.npy"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, make().astype(np.float32))
    return np.load(path)


def pcm_of(path: Path) -> np.ndarray:
    return np.frombuffer(b"".join(decode_file(path)), "<i2").astype(np.float32) / 32768


def kokoro(text: str, voice: str, speed: float) -> np.ndarray:
    def make() -> np.ndarray:
        samples, rate = _kokoro().create(text, voice=voice, lang="en-us", speed=speed)
        with tempfile.TemporaryDirectory() as folder:
            return pcm_of(write_wav(Path(folder) / "k.wav", np.asarray(samples, np.float32), rate))

    return cached(f"kokoro|{voice}|{speed}|{text}", make)


def espeak(text: str, voice: str, speed: float) -> np.ndarray:
    def make() -> np.ndarray:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "e.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-s", str(round(160 * speed)), "-w",
                            str(path), text], check=True, timeout=60)
            return pcm_of(path)

    return cached(f"espeak|{voice}|{speed}|{text}", make)


def sentences(rng: np.random.Generator, count: int) -> list[str]:
    """Varied everyday sentences (none says the word)."""
    return [f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(SUBJECTS)}"
            f" {rng.choice(ENDINGS)}." for _ in range(count)]


def talk(voice: str, speed: float, seed: int) -> np.ndarray:
    """About two and a half minutes of one espeak voice reading sentences, with short pauses."""
    rng = np.random.default_rng(seed)
    text = " ".join(sentences(rng, SENTENCES_PER_VOICE_SPEED))
    return espeak(text, voice, speed)


def pink(n: int, rng: np.random.Generator) -> np.ndarray:
    spectrum = np.fft.rfft(rng.normal(size=n))
    spectrum /= np.sqrt(np.maximum(np.arange(len(spectrum)), 1))
    return unit(np.fft.irfft(spectrum, n))


def brown(n: int, rng: np.random.Generator) -> np.ndarray:
    walk = np.cumsum(rng.normal(size=n))
    return unit(walk - np.convolve(walk, np.ones(1600) / 1600, "same"))  # no drift


def music(n: int, rng: np.random.Generator) -> np.ndarray:
    """Chords of three harmonics-rich notes changing every half second, like a soundtrack."""
    out = np.zeros(n)
    step = RATE // 2
    t = np.arange(step) / RATE
    for start in range(0, n, step):
        chord = 110 * 2 ** (rng.choice(24, 3) / 12)
        notes = sum(np.sin(2 * np.pi * k * f * t) / k for f in chord for k in (1, 2, 3))
        out[start : start + step] = (notes * np.exp(-3 * t))[: n - start]
    return unit(out)


def babble(n: int, rng: np.random.Generator) -> np.ndarray:
    """Four people talking at once."""
    voices = [talk(str(v), 1.0, 100 + i) for i, v in enumerate(ESPEAK_VOICES[:4])]
    return unit(np.sum([np.resize(np.roll(v, int(rng.integers(len(v)))), n) for v in voices], 0))


def television(n: int, rng: np.random.Generator) -> np.ndarray:
    speech = np.resize(talk("en-gb-x-rp", 1.1, 200), n)
    return unit(unit(speech) + 0.5 * music(n, rng) + 0.1 * pink(n, rng))


NOISES: dict[str, Callable[[int, np.random.Generator], np.ndarray]] = {
    "white": lambda n, rng: rng.normal(size=n), "pink": pink, "brown": brown,
    "babble": babble, "television": television,
}


def unit(audio: np.ndarray) -> np.ndarray:
    return audio / max(float(np.sqrt(np.mean(audio**2))), 1e-9)


def mixed(speech: np.ndarray, noise: np.ndarray | None, snr: float | None) -> np.ndarray:
    """``speech`` with half a second before and a second after, in ``noise`` at ``snr`` dB
    (the speech's power over the noise's)."""
    audio = np.concatenate([np.zeros(RATE // 2), speech, np.zeros(RATE)])
    if noise is None or snr is None:
        return audio
    power = float(np.mean(speech**2))
    return audio + noise[: len(audio)] * np.sqrt(power / 10 ** (snr / 10))


def hour_without_word(rng: np.random.Generator) -> list[np.ndarray]:
    """An hour and more of speech and television-like audio that never says the word: every
    espeak voice at three speeds, alone, over music, and over babble."""
    parts = []
    for i, voice in enumerate(ESPEAK_VOICES):
        for j, speed in enumerate((0.85, 1.0, 1.2)):
            speech = talk(voice, speed, 10 * i + j)
            kind = (i + j) % 3
            if kind == 1:
                speech = unit(speech) * 0.1 + 0.05 * music(len(speech), rng)
            elif kind == 2:
                speech = unit(speech) * 0.1 + 0.03 * babble(len(speech), rng)
            parts.append(speech)
    return parts
