"""Smart Turn v3: the probability that a speaker has finished their turn, from the audio.

The model (BSD-2-Clause, by Daily) is the ONNX file the ``pipecat-ai`` wheel ships;
only that file is read, pipecat itself is never imported (its import logs a banner and
pulls in its framework). It hears the last 8 s of the utterance as Whisper's 80
log-mel bins and answers from the intonation and the words' shape, so it works for
any language without a transcript.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from hearing.packages import package_file
from hearing.vad import RATE, to_float

MODEL = Path("audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx")
"""Where the model lies inside the ``pipecat`` package."""
SECONDS = 8
"""The model hears this much audio: the end of a longer utterance, silence in front of a
shorter one."""
N_FFT, HOP, MELS = 400, 160, 80


PACKAGE = "pipecat-ai>=1.14,<2"
"""Whose wheel ships the model: ``./bootstrap`` installs it without its dependencies."""


class SmartTurnMissing(RuntimeError):
    """The model file is not installed."""


def model_path() -> Path:
    path = package_file("pipecat", MODEL)
    if path is not None:
        return path
    raise SmartTurnMissing(
        "the Smart Turn model is not installed (it ships in the pipecat-ai package): run "
        f"./bootstrap setup, or pip install --no-deps '{PACKAGE}', or set "
        "[vad] end_of_turn = \"silence\""
    )


def _mel_filters() -> np.ndarray:
    """Whisper's 80 Slaney mel filters over 0-8 kHz, shape (201, 80)."""
    filters = _feature_extractor().FeatureExtractor.get_mel_filters(RATE, N_FFT, n_mels=MELS)
    return np.asarray(filters, dtype=np.float64).T


def _feature_extractor() -> ModuleType:
    """faster-whisper's ``feature_extractor`` module (it needs only numpy), run on its own:
    the package's ``__init__`` would load CTranslate2, PyAV and tokenizers into the mic
    (25 MB of RSS)."""
    path = package_file("faster_whisper", Path("feature_extractor.py"))
    if path is None:
        raise SmartTurnMissing("faster-whisper is not installed: pip install faster-whisper")
    spec = importlib.util.spec_from_file_location("_whisper_feature_extractor", path)
    assert spec is not None and spec.loader is not None  # a .py file has both
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def log_mel(samples: np.ndarray) -> np.ndarray:
    """Whisper-style features of exactly ``SECONDS`` of audio: normalized to zero mean and
    unit variance (as the model was trained), shape (80, 800)."""
    x = samples.astype(np.float64)
    x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
    padded = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    spectrum = np.abs(np.fft.rfft(frames * _WINDOW, axis=-1)) ** 2
    mel = np.maximum(spectrum @ _FILTERS, 1e-10)
    logs = np.log10(mel).T[:, :-1]  # Whisper drops the last frame
    logs = np.maximum(logs, logs.max() - 8.0)
    return ((logs + 4.0) / 4.0).astype(np.float32)


_WINDOW = np.hanning(N_FFT + 1)[:-1]  # periodic Hann, as torch.hann_window
_FILTERS = _mel_filters()


def last_seconds(pcm: bytes) -> np.ndarray:
    """The last ``SECONDS`` of PCM16 audio as float samples, zeros in front if shorter."""
    samples = to_float(pcm)[-SECONDS * RATE :]
    return np.pad(samples, (SECONDS * RATE - len(samples), 0))


class SmartTurn:
    """The model, loaded once; one call per pause, on the utterance so far."""

    def __init__(self, threads: int = 1) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = threads
        options.log_severity_level = 4
        self._session = onnxruntime.InferenceSession(
            str(model_path()), providers=["CPUExecutionProvider"], sess_options=options
        )
        self.last_cost = 0.0
        """CPU seconds of the latest decision (features and model)."""

    def __call__(self, pcm: bytes) -> float:
        """The probability (0-1) that the speaker has finished, from 16 kHz PCM16 audio that
        ends at the pause."""
        began = time.process_time()
        features = log_mel(last_seconds(pcm))[np.newaxis]
        (out,) = self._session.run(None, {"input_features": features})
        self.last_cost = time.process_time() - began
        return float(np.asarray(out).ravel()[0])
