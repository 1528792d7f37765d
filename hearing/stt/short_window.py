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
for the better, and one wrong choice then stuck to the next questions; so it is done
only for a word or two (``BRIEF``), which tell too little of their language.
Two languages whose totals come within ``CLOSE`` are a tie, decided on the whole
window, where the same decodes stand further apart.

A tie is settled by more than the words. The total alone is how likely the words are
*if* the audio is in that language, and Whisper translates: a clear Japanese
"何ができますか" tied with its English "What can I do?" (-1.76 against -1.70 nats),
and on the whole window the English won for three voices of three. So a tie's decodes
on the whole window are scored by the joint likelihood of the language and its words:
the total plus the log of Whisper's own language probability for that encoder output
(``detect_language``, on the 30 s window it was trained on: 0.99 and more Japanese
there). Not on the short window: there, on Japanese voices speaking English, detection
said Japanese at 0.9-1.0 and sent "Set a timer for five minutes" to kana. Measured on
164 clips (bench/languages.py's questions, three Kokoro voices and espeak-ng, with and
without the mic's lead): 18 wrong languages with the total alone, 16 with detection in
a tie (Japanese ones wrong 3 → 0), none of them English written as Japanese.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ctranslate2 import StorageView
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_compression_ratio, get_suppressed_tokens

from hearing.stt.engine import Stop, give_up_if
from hearing.stt.scoring import in_own_script, runs_on, total_logprob

log = logging.getLogger(__name__)

RATE = 16000
HOP = 160
"""Samples per feature frame (10 ms)."""
MARGIN = 4.0
"""Seconds of silence the window keeps after the utterance: with less, Whisper repeated short
questions ("What time is it? What time is it") in tests; a longer utterance gets a longer
window, up to the whole one."""
WHOLE = 30.0
TOKENS_PER_SECOND = 8
"""A generous bound on speech (English runs at about 3-4 tokens a second): more means a loop."""
MAX_COMPRESSION = 2.4
MIN_LOGPROB = -1.0
NO_SPEECH = 0.6
"""faster-whisper's own thresholds (``compression_ratio_threshold``, ``log_prob_threshold``,
``no_speech_threshold``)."""
CLOSE = 1.0
"""Nats of total log probability within which two languages' decodes on the short window are
a tie. On bench/languages.py's 26 questions (Kokoro's Japanese voice in three languages), 5
came this close, and 2 of them had the wrong language ahead ("Who painted the Mona Lisa?"
in kana, by 0.05); on the whole window all 5 came out right. A tie is decoded again on
the whole window, in the tied languages only: about 1 s more on 2 cores."""
BRIEF = 1.5
"""Seconds of audio (the mic's 0.3 s before the speech included) up to which an utterance is a
word or two, too little to tell its language by: "Stop.", said over what the echo canceller
left of an English answer, came out as Japanese kana ("スター") or Italian ("è"). Up to 1.8 s,
bench/languages.py's shortest questions (about 1 s of speech) said right after a question in
another language went to that language in 2 cases of 12 ("Good morning!" as Italian, "Che ore
sono?" in kana); up to 1.5 s, with the mic's silence around them, none is brief."""
FLOOR = 1e-6
"""The least language probability counted (log: -13.8 nats): one Whisper gives next to
nothing still loses to the words rather than to minus infinity."""
LEAN = 1.0
"""Nats by which another language's decode must beat the usual language's to win a brief
utterance: the ``CLOSE`` of a tie, which a brief utterance settles this way. A decode that
wins so but is itself unsure (or heard as no speech) does not switch the language: the whole
window decodes the utterance in the usual one. "Stop." cut to its first 0.25 s over an
English echo came out in kana "スター" (by 2.2 nats, at -1.49 a token), and the whole window
then wrote it in kana too: of 150 clips of "Stop." (five voices, cut to its first or last
0.15-0.35 s, over an English echo at -25 to -10 dB) 17 went to Japanese or Italian, 15 of
them this way, 9 by an unsure decode and 6 by no speech, whose whole window went to Whisper's
detection. In the usual language 2 stay Japanese or Italian, each by a sure decode."""


@dataclass(frozen=True)
class Heard:
    text: str
    lang: str
    """The language whose forced decode scored best."""


@dataclass(frozen=True)
class Undecided:
    """The short window's text is unsure, but its decodes still rank the languages: the whole
    window is decoded in ``lang``. (Whisper's own detection, from the first 30 s of features,
    took an accented "Who wrote the novel Pride and Prejudice?" for Japanese, which the
    forced decodes had ranked second.)"""

    lang: str


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

    def transcribe(
        self, audio: np.ndarray, usual: str | None = None, stop: Stop | None = None
    ) -> Heard | Undecided | None:
        """The text of ``audio`` (float samples at 16 kHz) and its language; ``Undecided``
        (the likeliest language) or None when the result cannot be trusted: then the whole
        window decides, as faster-whisper always has. ``usual``: the language the user
        spoke last, which a brief utterance keeps unless another is clearly likelier.
        ``stop``: set, a tie is not decoded again (:class:`Superseded` instead)."""
        samples = self.window(audio)
        if not samples:
            return None
        budget = round(TOKENS_PER_SECOND * len(audio) / RATE) + 8
        every = list(range(len(self.languages)))
        results, texts, scores = self._decode(audio, samples, every, budget, detect=False)
        written = self._written(texts, every)
        ranked = _ranked(scores, written)
        best = ranked[0]
        kept = self._kept(audio, results, texts, written, usual, budget)
        if kept is not None and kept != best and (ahead := scores[best] - scores[kept]) < LEAN:
            log.info("short window: a word or two, kept in %s (%s likelier by %.2f nats)",
                     usual, self.languages[best], ahead)
            best = kept
        # A brief utterance whose usual decode is sound leaves what the short window cannot
        # trust to the whole window in that language, not in one an unsure decode or
        # Whisper's detection of a few hundred milliseconds chose.
        doubt = self.languages[best if kept is None else kept]
        result, text = results[best], texts[best]
        tokens = result.sequences_ids[0]
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        if result.no_speech_prob > NO_SPEECH:
            # Silence or noise: on a short window Whisper makes up words ("you") with some
            # confidence; on the whole window faster-whisper's own checks drop them.
            log.info("short window: probably no speech (%.2f); the whole window decides",
                     result.no_speech_prob)
            return None if kept is None else Undecided(doubt)
        if runs_on(result, text, budget) or get_compression_ratio(text) > MAX_COMPRESSION:
            log.info("short window: %d tokens %r look like a loop; the whole window decides",
                     len(tokens), text[:80])
            return None if kept is None else Undecided(doubt)
        if avg_logprob < MIN_LOGPROB:
            log.info("short window: unsure (log prob %.2f) of %r; the whole window decides",
                     avg_logprob, text[:80])
            return Undecided(doubt)
        tied = [i for i in ranked
                if written[i] == written[best] and scores[best] - scores[i] < CLOSE]
        if len(tied) > 1 and best != kept:
            give_up_if(stop)
            return self.break_tie(audio, [self.languages[i] for i in tied], budget)
        return Heard(text, self.languages[best])

    def _kept(self, audio: np.ndarray, results: list[Any], texts: list[str],
              written: list[bool], usual: str | None, budget: int) -> int | None:
        """The position of the ``usual`` language's decode, when ``audio`` is brief and that
        decode sound (in its own script, not a loop): it may then win a close call."""
        if usual not in self.languages or len(audio) > BRIEF * RATE:
            return None
        kept = self.languages.index(usual)
        sound = written[kept] and not runs_on(results[kept], texts[kept], budget)
        return kept if sound else None

    def break_tie(self, audio: np.ndarray, languages: Sequence[str],
                  budget: int) -> Heard | Undecided:
        """The decodes of ``audio`` in ``languages`` (tied on the short window, the likeliest
        first) again, on the whole window: the best that does not loop."""
        tied = [self.languages.index(language) for language in languages]
        results, texts, scores = self._decode(audio, round(WHOLE * RATE), tied, budget,
                                              detect=True)
        sound = [n for n, result in enumerate(results) if not runs_on(result, texts[n], budget)]
        if not sound:
            return Undecided(self.languages[tied[0]])
        written = self._written([texts[n] for n in sound], [tied[n] for n in sound])
        best = _ranked([scores[n] for n in sound], written)[0]
        log.info("short window: a tie between %s; the whole window heard %s",
                 ", ".join(self.languages[i] for i in tied), self.languages[tied[sound[best]]])
        return Heard(texts[sound[best]], self.languages[tied[sound[best]]])

    def _decode(self, audio: np.ndarray, samples: int, languages: list[int], budget: int,
                detect: bool) -> tuple[list[Any], list[str], list[float]]:
        """``audio`` on a window of ``samples``, decoded in each of ``languages`` (indices into
        ``self.languages``) in one batch on the same encoder output; and the score of each
        decode: its total log probability, plus with ``detect`` the log of Whisper's
        probability of its language (the joint likelihood of the language and the words)."""
        padded = np.zeros(samples, dtype=np.float32)
        padded[: len(audio)] = audio
        features = self.model.feature_extractor(padded)[:, : samples // HOP]
        encoded = self.model.encode(features)
        # An English-only model has no language to detect: every decode is English.
        detected = (dict(self.model.model.detect_language(encoded)[0])
                    if detect and self.model.model.is_multilingual else {})
        if len(languages) > 1:  # one copy of the encoder output per language
            encoded = StorageView.from_array(np.repeat(np.asarray(encoded), len(languages), 0))
        results = self.model.model.generate(
            encoded,
            [self.prompts[i] for i in languages],
            beam_size=self.beam_size,
            max_length=len(self.prompts[0]) + budget,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self.suppress,
        )
        texts = [str(self.tokenizers[i].decode(r.sequences_ids[0])).strip()
                 for i, r in zip(languages, results, strict=True)]
        chance = [max(detected.get(f"<|{self.languages[i]}|>", 1.0 if not detected else 0.0),
                      FLOOR) for i in languages]
        scores = [total_logprob(r) + math.log(p) for r, p in zip(results, chance, strict=True)]
        return list(results), texts, scores

    def _written(self, texts: list[str], languages: list[int]) -> list[bool]:
        """Whether each text is in its language's own script."""
        return [in_own_script(text, self.languages[i])
                for text, i in zip(texts, languages, strict=True)]


def _ranked(scores: list[float], written: list[bool]) -> list[int]:
    """Positions in ``scores``, the likeliest first: those ``written`` in their language's
    own script before the rest."""
    return sorted(range(len(scores)), key=lambda n: (not written[n], -scores[n]))
