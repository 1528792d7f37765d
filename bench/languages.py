"""Benchmark: the embedded recognizer in English, Italian and Japanese.

Questions spoken by Kokoro (the ``jf_alpha`` voice: a Japanese speaker's
accent in every language, which makes detection harder than a native voice
would) go through :class:`EmbeddedWhisper` as the STT service runs it (two
threads, greedy decoding, the short window). For each model and language:
word error rate (characters for Japanese, which has no spaces), seconds per
question, and how often the language came back right. For the multilingual
model, three ways to choose the language of the short questions: Whisper's own
detection among its 99 languages, the same detection restricted to the
languages of the voice tables, and what the service does (a forced decode
per allowed language, the best-scored wins).

    python -m bench.languages [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np

from hearing.convert import decode_file
from hearing.stt.embedded import EmbeddedWhisper
from settings.schema import WhisperConfig
from tests.helpers.speech import spoken
from tests.helpers.words import words

VOICES = ["en", "it", "ja"]
"""The languages of the default voice tables."""
KOKORO = {"en": "en-us", "it": "it", "ja": "ja"}
QUESTIONS = {
    "en": [
        "What time is it?",
        "Turn up the volume.",
        "What's the weather like today?",
        "Set a timer for five minutes.",
        "What can you do?",
        "Could you tell me what the weather will be like in Rome tomorrow?",
        # Came out as Japanese kana when the best mean log probability per token won.
        "Who wrote the novel Pride and Prejudice?",
        "Turn on the light in the kitchen, please.",
        "Who painted the Mona Lisa?",
        "Good morning.",
    ],
    "it": [
        "Che ore sono?",
        "Alza il volume.",
        "Che tempo fa oggi?",
        "Imposta un timer di cinque minuti.",
        "Che cosa sai fare?",
        "Che tempo farà domani a Milano?",
    ],
    "ja": [
        "今何時ですか",
        "音量を上げて",
        "今日の天気はどうですか",
        "五分のタイマーをセットして",
        "何ができますか",
        "明日の東京の天気を教えてください",
    ],
}
SHORT = 2.0
"""Seconds: a question up to this long counts as short for the detection figures."""


def audio(text: str, lang: str) -> np.ndarray:
    pcm = b"".join(decode_file(spoken(text, KOKORO[lang])))
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


def tokens(text: str, lang: str) -> list[str]:
    """Words, or for Japanese characters (letters and digits only)."""
    if lang == "ja":
        return [ch for ch in text if ch.isalnum()]
    return words(text)


def error_rate(expected: list[str], heard: list[str]) -> float:
    """Levenshtein distance over tokens, divided by the expected length."""
    row = list(range(len(heard) + 1))
    for i, want in enumerate(expected, 1):
        previous, row[0] = row[0], i
        for j, got in enumerate(heard, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (want != got))
    return row[-1] / max(1, len(expected))


def bench_model(name: str, languages: list[str]) -> dict[str, Any]:
    began = time.perf_counter()
    model = EmbeddedWhisper(WhisperConfig(backend="embedded", embedded_model=name), VOICES)
    row: dict[str, Any] = {"load + warm-up s": round(time.perf_counter() - began, 2)}
    usual = None  # the language heard last, as the service hints it
    for lang in languages:
        errors, times, right = [], [], 0
        for text in QUESTIONS[lang]:
            samples = audio(text, lang)
            pcm = (samples * 32768).astype("<i2").tobytes()
            began = time.perf_counter()
            result = model.transcribe_now(pcm, usual)
            usual = result.lang
            times.append(time.perf_counter() - began)
            errors.append(error_rate(tokens(text, lang), tokens(result.text, lang)))
            right += result.lang == lang
        row[lang] = {
            "error rate": round(statistics.fmean(errors), 3),
            "s per question": round(statistics.fmean(times), 3),
            "language right": f"{right}/{len(QUESTIONS[lang])}",
        }
    if model.model.model.is_multilingual:
        row["short questions, language wrong"] = detection(model)
    return row


def detection(model: EmbeddedWhisper) -> dict[str, str]:
    """Of the short questions, how many each way of choosing got the language wrong."""
    free = restricted = service = total = 0
    usual = None
    for lang, texts in QUESTIONS.items():
        for text in texts:
            samples = audio(text, lang)
            if len(samples) / 16000 > SHORT:
                continue
            total += 1
            best, _, ranked = model.model.detect_language(samples)
            free += best != lang
            allowed = next(code for code, _ in ranked if code in VOICES)
            restricted += allowed != lang
            result = model.transcribe_now((samples * 32768).astype("<i2").tobytes(), usual)
            service += result.lang != lang
            usual = result.lang
    return {
        "Whisper's detection, any language": f"{free}/{total}",
        "Whisper's detection among en, it, ja": f"{restricted}/{total}",
        "forced decode per language (the service)": f"{service}/{total}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = {
        "base (multilingual, default)": bench_model("base", VOICES),
        "tiny.en": bench_model("tiny.en", ["en"]),
    }
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else _text(result))


def _text(value: dict[str, Any], indent: int = 0) -> str:
    lines = []
    for key, item in value.items():
        if isinstance(item, dict):
            lines += [" " * indent + f"{key}:", _text(item, indent + 2)]
        else:
            lines.append(" " * indent + f"{key}: {item}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
