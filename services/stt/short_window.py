"""Whisper on a short window: the encoder sees ``window`` seconds of audio instead of 30.

Whisper's encoder always takes 30 s of audio, padded with silence, and its
cost grows with that length, not with the speech: for a two-second question
nearly all of it is padding (tiny.en here: 0.26 s to encode 30 s, 0.04 s for
10 s). CTranslate2 accepts a shorter input (whisper.cpp calls the same trick
``audio_ctx``). Whisper was trained on 30 s windows, and on very short ones
(1-3 s) it loops, repeating the question; with at least 10 s, and 4 s of
silence after the speech, it transcribed every test question (alone, and two
in a row) as well as the whole window did. Each result is still checked the
way faster-whisper checks its own (length, compression ratio, log
probability, no-speech probability), and for a run of words that comes
back; one that looks wrong returns None and the caller uses the whole window.

With several languages the window is decoded once per language, in one batch
on the same encoder output. Whisper's own language detection looks at the
first few hundred milliseconds only and on a one-second question is often
sure and wrong ("Alza il volume" came out Japanese at 84 %); a forced decode in
the wrong language reads as gibberish and usually scores lower. Each decode is
scored by its total log probability (how likely the whole transcript is), not
the mean per token: Japanese is written one kana per token, each easy to
predict once the sound is known, so an English question spelt out in kana
("ふろとなあをぱいでんぱいじ", 15 tokens) had a better mean than its English
words ("The Rotanavo pride and prejudice.", 8 tokens), and won. The total is how
likely Whisper finds the whole transcript of the same audio, whatever its
number of tokens. A decode with no character of its language's own script
("Good morning" from the Japanese decode) is not that language, whatever
its score. Keeping the language heard last unless another scored
better by a margin was tried too: on the test questions it changed no choice
for the better, and one wrong choice then stuck to the next questions.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ctranslate2 import StorageView
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_compression_ratio, get_suppressed_tokens

log = logging.getLogger(__name__)

RATE = 16000
HOP = 160
"""Samples per feature frame (10 ms)."""
MARGIN = 4.0
"""Seconds of silence the window keeps after the utterance: with less, Whisper repeated short
questions ("What time is it? What time is it") in tests; a longer utterance gets a longer
window, up to the whole one."""
WHOLE = 30.0
REPEAT = 3
"""Words in a row that, seen twice in one short utterance, mean Whisper is looping."""
TOKENS_PER_SECOND = 8
"""A generous bound on speech (English runs at about 3-4 tokens a second): more means a loop."""
MAX_COMPRESSION = 2.4
MIN_LOGPROB = -1.0
NO_SPEECH = 0.6
"""faster-whisper's own thresholds (``compression_ratio_threshold``, ``log_prob_threshold``,
``no_speech_threshold``)."""


@dataclass(frozen=True)
class Heard:
    text: str
    lang: str
    """The language whose forced decode scored best."""


class ShortWindow:
    def __init__(
        self,
        model: Any,
        languages: Sequence[str],
        seconds: float,
        beam_size: int,
        margin: float = MARGIN,
    ) -> None:
        self.model = model
        """A ``faster_whisper.WhisperModel``."""
        self.shortest = round(seconds * RATE)
        self.margin = round(margin * RATE)
        self.beam_size = beam_size
        multilingual = model.model.is_multilingual
        self.languages = list(languages)
        self.tokenizers = [
            Tokenizer(model.hf_tokenizer, multilingual, task="transcribe", language=language)
            for language in self.languages
        ]
        self.prompts = [[*t.sot_sequence, t.no_timestamps] for t in self.tokenizers]
        self.suppress = get_suppressed_tokens(self.tokenizers[0], [-1])

    def window(self, audio: np.ndarray) -> int:
        """Samples of the window for ``audio``: 0 when only the whole window will do."""
        samples = max(self.shortest, len(audio) + self.margin)
        return samples if samples < round(WHOLE * RATE) else 0

    def transcribe(self, audio: np.ndarray) -> Heard | None:
        """The text of ``audio`` (float samples at 16 kHz) and its language, or None when the
        result cannot be trusted: then the whole window decides, as faster-whisper always has."""
        samples = self.window(audio)
        if not samples:
            return None
        padded = np.zeros(samples, dtype=np.float32)
        padded[: len(audio)] = audio
        features = self.model.feature_extractor(padded)[:, : samples // HOP]
        encoded = self.model.encode(features)
        if len(self.prompts) > 1:  # one copy of the encoder output per language
            encoded = StorageView.from_array(np.repeat(np.asarray(encoded), len(self.prompts), 0))
        budget = round(TOKENS_PER_SECOND * len(audio) / RATE) + 8
        results = self.model.model.generate(
            encoded,
            self.prompts,
            beam_size=self.beam_size,
            max_length=len(self.prompts[0]) + budget,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self.suppress,
        )
        texts = [str(t.decode(r.sequences_ids[0])).strip()
                 for t, r in zip(self.tokenizers, results, strict=True)]
        written = [i for i, text in enumerate(texts) if in_own_script(text, self.languages[i])]
        best = max(written or range(len(results)), key=lambda i: total_logprob(results[i]))
        result, text = results[best], texts[best]
        tokens = result.sequences_ids[0]
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        if result.no_speech_prob > NO_SPEECH:
            # Silence or noise: on a short window Whisper makes up words ("you") with some
            # confidence; on the whole window faster-whisper's own checks drop them.
            log.info("short window: probably no speech (%.2f); the whole window decides",
                     result.no_speech_prob)
            return None
        if len(tokens) >= budget or get_compression_ratio(text) > MAX_COMPRESSION or loops(text):
            log.info("short window: %d tokens %r look like a loop; the whole window decides",
                     len(tokens), text[:80])
            return None
        if avg_logprob < MIN_LOGPROB:
            log.info("short window: unsure (log prob %.2f) of %r; the whole window decides",
                     avg_logprob, text[:80])
            return None
        return Heard(text, self.languages[best])


OWN_SCRIPT = {
    "ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"),  # kana, kanji
    "zh": re.compile(r"[\u4e00-\u9fff]"),
    "ko": re.compile(r"[\uac00-\ud7af\u1100-\u11ff]"),  # hangul
}
"""Languages with a script of their own: a transcript of theirs has some of it."""


def in_own_script(text: str, language: str) -> bool:
    script = OWN_SCRIPT.get(language)
    return script is None or bool(script.search(text))


def total_logprob(result: Any) -> float:
    """The log probability of a decode's whole transcript (CTranslate2 scores the mean)."""
    return float(result.scores[0]) * len(result.sequences_ids[0])


def loops(text: str) -> bool:
    """Does a run of ``REPEAT`` words come back (Whisper repeating itself)?"""
    words = re.sub(r"[^\w\s']", " ", text.lower()).split()
    runs = [tuple(words[i : i + REPEAT]) for i in range(len(words) - REPEAT + 1)]
    return len(runs) != len(set(runs))
