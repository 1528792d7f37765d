"""Benchmark: how often a pause mid-sentence cuts a question in two, and how soon a
finished question's turn closes, with the end-of-turn model and with a fixed window.

    python -m bench.endpointing [--pauses 0.4,0.55,0.7,0.85,1.0] [--json FILE]

Every question (English, Italian, Japanese; two Kokoro voices) is spoken whole, cut
at a word boundary near its middle (``tests/helpers/pauses.py``) and given a pause
there; the clip goes through Silero and the segmenter exactly as the mic hears it
(no bus, no clock: the same decisions as live). A question that comes out as more
than one utterance was cut off. The same questions without a pause give the close
delay: from the last voiced frame to the end of the turn. Three ends of turn:
``model+text`` (the default; the guess at each pause is the words said so far, given
at once, as a perfect STT would), ``model`` (the audio model alone) and the fixed
window. Also the model's CPU time per decision and per second of audio heard.

A question cut in two is not always answered in two: speech that starts again before
any of the first half's answer is heard goes on with the question (the mic's
``RESUME_WINDOW``, ``docs/listening.md``). ``--answer-delay`` is the time from the end
of a turn to its answer's first speech (0.55 s: ``bench/turn.py``'s 0.77 s voice to
voice less the 0.22 s close); a cut whose rest is announced (``min_speech`` of voice)
within it is counted apart, as "answered in two" only when it is not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hearing.endpointing import TurnModel
from hearing.segmenter import Began, Ended, Paused, Segmenter
from hearing.smart_turn import SmartTurn
from hearing.vad import FRAME, RATE, load_scorer, to_float
from services.mic.resumption import RESUME_WINDOW
from settings.schema import VadConfig
from tests.helpers.pauses import split

QUESTIONS = {  # (question, words before the pause; characters for Japanese)
    "en-us": [
        ("What is the weather like in Rome tomorrow?", 6),
        ("What is the capital of Australia?", 5),
        ("Please remind me to call my sister tomorrow at nine in the morning.", 6),
        ("Could you tell me what the weather will be like in Rome tomorrow?", 5),
        ("How far is the moon from the earth?", 4),
        ("Who wrote the novel Pride and Prejudice?", 4),
        ("Turn on the light in the kitchen, please.", 5),
        ("How many minutes are there in a day?", 4),
        ("Set a timer for ten minutes, please.", 3),
        ("What time does the supermarket close today?", 4),
        ("Can you play some relaxing music in the living room?", 5),
        ("Send a message to my brother saying I will be late.", 6),
    ],
    "it": [
        ("Che tempo farà domani a Roma?", 3),
        ("Mi ricordi di chiamare mia sorella domani alle nove?", 4),
        ("Qual è la capitale dell'Australia?", 4),
        ("Quanto dista la luna dalla terra?", 3),
        ("Accendi la luce in cucina, per favore.", 3),
        ("Chi ha scritto il romanzo Orgoglio e pregiudizio?", 4),
        ("Imposta un timer di dieci minuti, per favore.", 3),
        ("A che ora chiude il supermercato oggi?", 4),
        ("Metti un po' di musica rilassante in soggiorno.", 4),
        ("Come si dice grazie in giapponese?", 3),
    ],
    "ja": [
        ("明日の東京の天気はどうですか？", 6),
        ("駅までどのくらいかかりますか？", 5),
        ("オーストラリアの首都はどこですか？", 8),
        ("明日の朝九時に妹に電話するように教えてください。", 9),
        ("キッチンの電気をつけてください。", 7),
        ("月は地球からどのくらい離れていますか？", 6),
        ("十分のタイマーをセットしてください。", 7),
        ("リビングで音楽をかけてください。", 7),
        ("明日は何時に起きればいいですか？", 10),
        ("兄に遅れると伝えてください。", 6),
    ],
}
VOICES = ["jm_kumo", "jf_alpha"]
LEAD = 0.5
TAIL = 2.0


class CountingModel:
    def __init__(self) -> None:
        self.model = SmartTurn()
        self.costs: list[float] = []

    def __call__(self, pcm: bytes) -> float:
        probability = self.model(pcm)
        self.costs.append(self.model.last_cost)
        return probability


Guess = Callable[[int, bytes], tuple[str, str]]
"""The STT's guess at a pause: (text, language) from the sample position in the clip
where the speech before the pause ended, and the utterance so far (16 kHz PCM16)."""


def perfect(words: list[tuple[int, str, str]]) -> Guess:
    """The guess a perfect STT would make, given at once: of ``words`` ((sample position
    in the clip up to which, text, language) of what was said), the first said by then."""
    def guess(end: int, pcm: bytes) -> tuple[str, str]:
        return next(((text, lang) for upto, text, lang in words if end <= upto),
                    words[-1][1:])
    return guess


class WhisperGuess:
    """The guess the assistant makes by default: the embedded Whisper of the audio so far,
    punctuation and mistakes included (cached: each variant hears the same pauses)."""

    def __init__(self, languages: list[str]) -> None:
        from hearing.stt.embedded import EmbeddedWhisper
        from settings.schema import WhisperConfig

        self.stt = EmbeddedWhisper(WhisperConfig(), languages)
        self.fallback = languages[0]
        self.known: dict[bytes, tuple[str, str]] = {}

    def __call__(self, end: int, pcm: bytes) -> tuple[str, str]:
        key = hashlib.sha256(pcm).digest()
        if key not in self.known:
            heard = self.stt.transcribe_now(pcm)
            self.known[key] = (heard.text, heard.lang or self.fallback)
        return self.known[key]


def endings(audio: np.ndarray, vad: VadConfig, model: TurnModel | None,
            guess: Guess) -> list[float]:
    """For each utterance the mic makes of ``audio`` (16 kHz float): seconds from its last
    voiced frame to the moment its turn ended."""
    return [(closed - end) / RATE for end, closed, _ in turns(audio, vad, model, guess)]


def answered_apart(spans: list[tuple[int, int, int]], delay: float) -> bool:
    """Whether any utterance of ``spans`` (from ``turns``) was answered before the next
    one was announced: the user heard an answer to part of the question."""
    wait = round(min(delay, RESUME_WINDOW) * RATE)
    pairs = zip(spans, spans[1:], strict=False)
    return any(after[2] - before[1] >= wait for before, after in pairs)


def turns(audio: np.ndarray, vad: VadConfig, model: TurnModel | None,
          guess: Guess, tail: float = TAIL) -> list[tuple[int, int, int]]:
    """For each utterance the mic makes of ``audio`` (16 kHz float, heard after ``LEAD``
    seconds of silence and followed by ``TAIL``): the sample positions of its last voiced
    frame, of the moment its turn ended and of the moment it was announced. ``guess``
    gives the STT's words at each pause, handed to the end of turn at once."""
    scorer = load_scorer(vad.engine)
    segmenter = Segmenter(vad, model)
    lead = round(LEAD * RATE)
    stream = np.concatenate([np.zeros(lead), audio, np.zeros(round(tail * RATE))])
    pcm = (np.clip(stream, -1, 1) * 32767).astype("<i2").tobytes()
    out: list[tuple[int, int, int]] = []
    announced = 0
    for at in range(0, len(pcm) - 2 * FRAME + 1, 2 * FRAME):
        frame = pcm[at : at + 2 * FRAME]
        for event in segmenter.push(frame, scorer(to_float(frame))):
            if isinstance(event, Began):
                announced = segmenter.position
            if isinstance(event, Paused):
                text, lang = guess(event.end - lead, bytes(event.pcm))
                segmenter.endpointer.heard(event.end, text, lang[:2])
            if isinstance(event, Ended):
                out.append((event.end, segmenter.position, announced))
    return out


def measure(pauses: list[float], variants: dict[str, tuple[VadConfig, CountingModel | None]],
            delay: float = 0.55, stt: Guess | None = None) -> dict[str, Any]:
    """``stt``: the guesses Whisper makes (None: a perfect STT's)."""
    heard = 0.0
    rows: dict[str, dict[str, Any]] = {}
    for lang, questions in QUESTIONS.items():
        row: dict[str, Any] = {"clips": 0, "questions": 0,
                               **{f"{what} {v}": 0 for v in variants
                                  for what in ("split", "apart", "waited", "split whole")},
                               **{f"close {v}": [] for v in variants}}
        for voice in VOICES:
            for text, count in questions:
                question = split(text, count, lang, voice)
                prefix = text[:count] if lang == "ja" else " ".join(text.split()[:count])
                row["questions"] += 1
                for name, (vad, model) in variants.items():
                    whole = [(len(question.before) + len(question.after) + RATE, text, lang)]
                    closes = endings(question.with_pause(0.0), vad, model, stt or perfect(whole))
                    row[f"close {name}"] += closes
                    # a natural pause in the fluent sentence cut it without any added
                    row[f"split whole {name}"] += len(closes) > 1
                    # the model heard a finished question as unfinished
                    row[f"waited {name}"] += model is not None and closes[-1] >= vad.silence
                    if model is not None:
                        heard += len(question.with_pause(0.0)) / RATE + LEAD + TAIL
                for pause in pauses:
                    clip = question.with_pause(pause)
                    middle = len(question.before) + round(pause * RATE / 2)  # of the pause
                    said = [(middle, prefix, lang), (len(clip) + RATE, text, lang)]
                    heard += (len(clip) / RATE + LEAD + TAIL) * sum(
                        m is not None for _, m in variants.values())  # each model variant hears it
                    row["clips"] += 1
                    for name, (vad, model) in variants.items():
                        spans = turns(clip, vad, model, stt or perfect(said))
                        row[f"split {name}"] += len(spans) > 1
                        row[f"apart {name}"] += answered_apart(spans, delay)
        rows[lang] = row
    costs = next(m.costs for _, m in variants.values() if m is not None)
    return {"rows": rows, "model_costs": costs, "heard_seconds": heard}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.endpointing", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pauses", default="0.4,0.55,0.7,0.85,1.0",
                        help="pauses mid-sentence, seconds")
    parser.add_argument("--fixed", type=float, default=0.5,
                        help="the fixed window compared with (default 0.5 s, the old default)")
    parser.add_argument("--threshold", type=float, default=VadConfig().end_of_turn_threshold,
                        help="[vad] end_of_turn_threshold (default: the setting's default)")
    parser.add_argument("--answer-delay", type=float, default=0.55,
                        help="seconds from the end of a turn to its answer's first speech")
    parser.add_argument("--guess", choices=("whisper", "perfect"), default="whisper",
                        help="the words at each pause: the embedded Whisper's transcript of "
                             "the audio so far (default, as live) or a perfect STT's")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    pauses = [float(p) for p in args.pauses.split(",")]
    model = CountingModel()
    judged = {"end_of_turn_threshold": args.threshold}
    variants: dict[str, tuple[VadConfig, CountingModel | None]] = {
        "model+text": (VadConfig(end_of_turn="model+text", **judged), model),
        "model": (VadConfig(end_of_turn="model", **judged), model),
        f"fixed {args.fixed} s": (VadConfig(end_of_turn="silence", silence=args.fixed), None),
    }
    began = time.time()
    stt = WhisperGuess([lang[:2] for lang in QUESTIONS]) if args.guess == "whisper" else None
    result = measure(pauses, variants, args.answer_delay, stt)
    defaults = VadConfig()
    print(f"pauses {pauses} s; short {defaults.short_silence} s, long {defaults.silence} s, "
          f"threshold {args.threshold}; guesses: {args.guess}")
    clips = sum(row["clips"] for row in result["rows"].values())
    questions = sum(row["questions"] for row in result["rows"].values())
    for name in variants:
        print(f"  {name}:")
        for lang, row in result["rows"].items():
            close = row[f"close {name}"]
            print(f"    {lang:<6} cut in two {row[f'split {name}']}/{row['clips']} (answered "
                  f"in two {row[f'apart {name}']}); a finished "
                  f"question closed after {statistics.median(close):.2f} s median, "
                  f"{max(close):.2f} s max; waited the long silence "
                  f"{row[f'waited {name}']}/{row['questions']}; cut in two without an added "
                  f"pause {row[f'split whole {name}']}/{row['questions']}")
        cut = sum(row[f"split {name}"] for row in result["rows"].values())
        apart = sum(row[f"apart {name}"] for row in result["rows"].values())
        waited = sum(row[f"waited {name}"] for row in result["rows"].values())
        print(f"    all    cut in two {cut}/{clips} = {cut / clips:.1%}, answered in two "
              f"{apart}/{clips} = {apart / clips:.1%}; finished questions "
              f"that waited the long silence {waited}/{questions} = {waited / questions:.1%}")
    costs = result["model_costs"]
    print(f"  model: {len(costs)} decisions, CPU {statistics.median(costs) * 1000:.0f} ms "
          f"median, {max(costs) * 1000:.0f} ms max; {sum(costs) / result['heard_seconds']:.4f} "
          f"CPU s per second of audio heard")
    print(f"  ({time.time() - began:.0f} s; load average "
          f"{[round(x, 2) for x in os.getloadavg()]})")
    if args.json:
        args.json.write_text(json.dumps({**result, "pauses": pauses, "fixed": args.fixed,
                                         "answer_delay": args.answer_delay,
                                         "guess": args.guess}, indent=1))


if __name__ == "__main__":
    main()
