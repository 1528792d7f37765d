"""Whatever a card or a file gives, as 16 kHz mono PCM16: the one format past the mic."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np
from av.audio.resampler import AudioResampler

from hearing.vad import RATE


class ToSpeechFormat:
    """A streaming converter from interleaved PCM16 at any rate and channel count."""

    def __init__(self, rate: int, channels: int) -> None:
        self.rate = rate
        self.channels = channels
        self._resampler = (
            AudioResampler(format="s16", layout="mono", rate=RATE) if rate != RATE else None
        )

    def __call__(self, pcm: bytes) -> bytes:
        if self.channels > 1:
            frames = np.frombuffer(pcm, dtype="<i2").reshape(-1, self.channels)
            pcm = frames.mean(axis=1).astype("<i2").tobytes()
        if self._resampler is None or not pcm:
            return pcm
        frame = av.AudioFrame.from_ndarray(
            np.frombuffer(pcm, dtype="<i2").reshape(1, -1), format="s16", layout="mono"
        )
        frame.sample_rate = self.rate
        return _pcm(self._resampler.resample(frame))

    def flush(self) -> bytes:
        """What the resampler still holds at the end of the stream."""
        return _pcm(self._resampler.resample(None)) if self._resampler is not None else b""


def _pcm(frames: list[av.AudioFrame]) -> bytes:
    return b"".join(bytes(out.planes[0])[: 2 * out.samples] for out in frames)


class AudioFileError(Exception):
    """A file that cannot be read as audio; the message names it and says why."""


def decode_file(path: Path, chunk: int = 16000) -> Iterator[bytes]:
    """The audio of ``path`` (WAV of any rate, mono or stereo, or what FFmpeg reads)
    as 16 kHz mono PCM16 chunks."""
    resampler = AudioResampler(format="s16", layout="mono", rate=RATE)
    try:
        container = av.open(str(path))
    except (OSError, av.FFmpegError) as exc:
        raise AudioFileError(f"{path}: cannot open as audio: {exc}") from None
    with container:
        if not container.streams.audio:
            raise AudioFileError(f"{path}: has no audio stream")
        pending = bytearray()
        try:
            for frame in container.decode(audio=0):
                pending += _pcm(resampler.resample(frame))
                while len(pending) >= 2 * chunk:
                    yield bytes(pending[: 2 * chunk])
                    del pending[: 2 * chunk]
        except av.FFmpegError as exc:
            raise AudioFileError(f"{path}: cannot decode: {exc}") from None
        pending += _pcm(resampler.resample(None))
        if pending:
            yield bytes(pending)
