"""Questions with a pause in the middle, as people make them: cut from fluent speech.

Kokoro speaks a half sentence as a whole one (its voice falls at the end), which is
not what a person sounds like when they stop to think. So the question is spoken
whole, and cut at a word boundary inside it: the prefix's words are spoken alone to
learn roughly how long they take, and the quietest 20 ms within 0.15 s of that time
in the whole sentence is the boundary. The clip is the sentence with ``pause``
seconds of silence put there; the cut-off half is the sentence up to the boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hearing.convert import decode_file
from tests.helpers.speech import speech_bounds, spoken

RATE = 16000
VOICE = "jm_kumo"
"""The voice whose questions the end-of-turn model hears as a person's (the default
test voice, jf_alpha speaking English, often sounds unfinished to it)."""
SEARCH = 0.15
WINDOW = round(0.02 * RATE)


@dataclass(frozen=True)
class Paused:
    text: str
    lang: str
    before: np.ndarray
    """The words before the pause, as spoken inside the whole sentence (16 kHz float)."""
    after: np.ndarray
    """The rest of the sentence."""

    def with_pause(self, pause: float) -> np.ndarray:
        gap = np.zeros(round(pause * RATE), dtype=np.float32)
        return np.concatenate([self.before, gap, self.after])


def speech16(text: str, lang: str = "en-us", voice: str = VOICE) -> np.ndarray:
    """``text`` spoken, at 16 kHz as the mic hears it, without the silence around it."""
    pcm = b"".join(decode_file(spoken(text, lang, voice)))
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
    first, last = speech_bounds(samples, RATE)
    return samples[round(first * RATE) : round(last * RATE) + 1]


def split(text: str, words: int, lang: str = "en-us", voice: str = VOICE) -> Paused:
    """``text`` cut after its first ``words`` words (characters for Japanese, which has
    no spaces)."""
    whole = speech16(text, lang, voice)
    prefix = text[:words] if lang == "ja" else " ".join(text.split()[:words])
    guess = len(speech16(prefix, lang, voice))
    low, high = max(0, guess - round(SEARCH * RATE)), min(len(whole), guess + round(SEARCH * RATE))
    energy = np.convolve(whole[low:high] ** 2, np.ones(WINDOW), mode="valid")
    at = low + int(np.argmin(energy)) + WINDOW // 2
    return Paused(text, lang, whole[:at], whole[at:])
