"""Kokoro's decoder run on a few frames at a time: the first audio of a piece comes out in
a fraction of the piece's synthesis time.

The text side of the model (tokens to frames: 4 % of the time) runs once per
piece. When nothing is queued to play (the first piece of a reply), the
decoder turns a head of the frames into audio first, just long enough that
the rest is decoded while the head plays, and then the rest: one seam, decoded
with frames either side of it and cross-faded over 10 ms. A piece that the
queued audio leaves time for is decoded whole. The silence before the speech
is not decoded, nor the silence after it beyond ``END_PAD`` frames. The seam's
loudness is matched in :mod:`services.tts.kokoro.seam`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from services.tts.kokoro.seam import HOP, MATCH, join_rest, raise_head
from services.tts.kokoro.split import ENERGY, FEATURES, PITCH
from services.tts.pcm import Samples

ONSET_ENERGY = -6.0
"""Speech starts at the first frame whose predicted energy rises above this (silence sits
near -9; the audio becomes audible a frame later)."""
FADE_ENERGY = 0.0
"""Speech has faded by the last frame whose energy is above this: energy falls slowly, and
below it the audio is under 1 % of its peak."""
MARGIN = 2
"""Frames kept either side of the speech (50 ms): its onset and its fade. The silence
after is no longer than kokoro-onnx's own trim leaves (80-90 ms), so two pieces of one
sentence join without a pause that is not in the text ("close the | kitchen")."""
FRAME_SECONDS = HOP / 24000
CONTEXT = 16
"""Frames decoded before the rest of a piece, behind the seam: the decoder's convolutions
and its normalization see their neighbours (with 12, Whisper misheard more words)."""
LOOKAHEAD = 8
"""Frames decoded past the end of the head (and decoded again with the rest). On the first
pieces of 20 replies Whisper tiny.en misheard 12 of 50 words with 8, with 16, and decoded
whole alike; on whole sentences streamed as one piece, 26-28 of 190 with 8, 17-23 with
16, 16 whole. 8 frames less to decode before the first word: 0.24 s instead of 0.30 s."""
END_PAD = 24
"""Frames of Kokoro's silence decoded after the speech and dropped: the decoder fades out
the last frames it is given (the end of a word came out 30-50 dB too soft without)."""
SECONDS_PER_FRAME = 0.0075
"""The decoder's cost on 2 threads here (7-8 ms a frame): the head is sized on it while the
machine keeps that pace, so the same text is cut the same way every time."""
SLOWER = 1.4
"""Once the decoder runs this much slower than ``SECONDS_PER_FRAME`` (a busy machine, a
slower CPU), heads are sized on the pace measured (rounded up to a power of it), or the
rest would come late: a pause in the middle of a phrase (0.4-0.8 s with one busy process
on the 2 cores here). Measured here: 7.1-8.5 ms a frame on a quiet machine, 12-13 ms with
one busy process."""
PACE_WEIGHT = 0.3
"""Weight of the latest decode in the pace measured (a moving average)."""
SHORTEST_HEAD = 8
"""Frames (0.2 s): a shorter head would be mostly the onset margin."""
SAFETY = 0.9
"""Share of the queued audio's play time the decoding after it may take."""


@dataclass(frozen=True)
class Frames:
    """What the text side predicts for one piece; the decoder's inputs."""

    features: np.ndarray
    pitch: np.ndarray
    energy: np.ndarray
    style: np.ndarray

    @property
    def count(self) -> int:
        return int(self.features.shape[2])

    def window(self, start: int, end: int) -> dict[str, np.ndarray]:
        return {
            FEATURES: self.features[:, :, start:end],
            PITCH: self.pitch[:, 2 * start : 2 * end],
            ENERGY: self.energy[:, 2 * start : 2 * end],
            "style": self.style,
        }


def voiced_range(frames: Frames) -> tuple[int, int]:
    """The frames worth decoding: the speech and ``MARGIN`` either side (all when none is
    loud: better a quiet piece spoken than one dropped)."""
    energy = frames.energy[0, : 2 * frames.count].reshape(-1, 2).mean(axis=1)
    onset, fade = np.flatnonzero(energy > ONSET_ENERGY), np.flatnonzero(energy > FADE_ENERGY)
    if not len(fade):
        return 0, frames.count
    return max(0, int(onset[0]) - MARGIN), min(frames.count, int(fade[-1]) + 1 + MARGIN)


class StreamingDecoder:
    """Runs the two halves of a split Kokoro (sessions of ``kokoro_split``'s files)."""

    def __init__(
        self, text: Any, decoder: Any, context: int = CONTEXT, lookahead: int = LOOKAHEAD
    ) -> None:
        if context < MATCH:
            raise ValueError(f"context of {context} frames: the seam's level needs {MATCH}")
        self.text = text
        self.decoder = decoder
        self.context = context
        """Frames decoded before the rest of a piece, behind the seam."""
        self.lookahead = lookahead
        """Frames decoded after the head, past the seam."""
        self.pace = SECONDS_PER_FRAME
        """Seconds per frame the decoder took lately (a moving average)."""

    @property
    def seconds_per_frame(self) -> float:
        """The cost heads are sized on: the usual one unless the decoder is much slower, then
        the pace rounded up to a power of ``SLOWER`` (a pace that wobbles within one step
        cuts the same text the same way)."""
        if self.pace <= SLOWER * SECONDS_PER_FRAME:
            return SECONDS_PER_FRAME
        steps = math.ceil(math.log(self.pace / SECONDS_PER_FRAME, SLOWER))
        return float(SECONDS_PER_FRAME * SLOWER**steps)

    def frames(self, tokens: list[int], style: np.ndarray, speed: float) -> Frames:
        features, pitch, energy = self.text.run(None, {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": np.asarray(style, dtype=np.float32).reshape(1, -1),
            "speed": np.array([speed], dtype=np.float32),
        })
        return Frames(features, pitch, energy, np.asarray(style, np.float32).reshape(1, -1))

    def whole(self, frames: Frames) -> Samples:
        return self._whole(frames, *voiced_range(frames))

    def _whole(self, frames: Frames, start: int, end: int) -> Samples:
        return self._decode(frames, start, end, END_PAD)[: (end - start) * HOP]

    def stream(self, frames: Frames, queued: float) -> Iterator[Samples]:
        """The audio of ``frames``: whole when ``queued`` seconds of audio already waiting
        to play leave time for that, else a head that plays while the rest is decoded."""
        start, end = voiced_range(frames)
        head = head_frames(
            end - start, queued, self.seconds_per_frame, self.context, self.lookahead
        )
        if head is None:
            yield self._whole(frames, start, end)
            return
        split = start + head
        audio = raise_head(self._decode(frames, start, split, self.lookahead))
        yield audio[: head * HOP]
        lo = max(start, split - self.context)
        rest = self._decode(frames, lo, end, END_PAD)[(split - MATCH - lo) * HOP : (end - lo) * HOP]
        yield join_rest(audio, rest, head * HOP)

    def _decode(self, frames: Frames, lo: int, stop: int, pad: int) -> Samples:
        """Frames ``[lo, stop)`` and up to ``pad`` more, decoded: the decoder fades out the
        last frames it is given, so those must be frames nobody hears (the next chunk's, or
        Kokoro's silence after the speech)."""
        hi = min(frames.count, stop + pad)
        started = time.perf_counter()
        audio = np.asarray(self.decoder.run(None, frames.window(lo, hi))[0], np.float32).ravel()
        took = (time.perf_counter() - started) / max(1, hi - lo)
        self.pace += PACE_WEIGHT * (took - self.pace)
        return audio


def head_frames(
    voiced: int, queued: float, seconds_per_frame: float, context: int, lookahead: int = LOOKAHEAD
) -> int | None:
    """The shortest head after which the rest of a piece of ``voiced`` frames is decoded
    before the head has played; None: decode it whole (the ``queued`` seconds of audio
    cover that, or a head would save too little to be worth a seam)."""
    if (voiced + END_PAD) * seconds_per_frame <= SAFETY * queued:
        return None
    for head in range(SHORTEST_HEAD, voiced - context):
        # The queue plays while the head is decoded; the head (less its onset margin, which
        # the speaker trims) plays after both; the rest must be ready before it ends.
        decoding_head = (head + lookahead) * seconds_per_frame
        plays = max(0.0, queued - decoding_head) + (head - MARGIN) * FRAME_SECONDS
        if (voiced - head + context + END_PAD) * seconds_per_frame <= SAFETY * plays:
            return head
    return None
