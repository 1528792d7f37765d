"""The Kokoro synthesizer: one onnxruntime session, per-language voices, a Japanese G2P."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from services.tts.kokoro.blends import Voice, resolve_tables
from services.tts.kokoro.embedded import PackagedModel, cache_dir, model_and_voices
from services.tts.kokoro.japanese import MissingReadings, japanese_reader
from services.tts.kokoro.split import open_halves, split_model
from services.tts.kokoro.stream import SECONDS_PER_FRAME, StreamingDecoder
from services.tts.pcm import Samples
from services.tts.voices import VoiceError, voice_for
from settings import Config

log = logging.getLogger(__name__)

SAMPLE_RATE = 24000


def is_japanese(lang: str) -> bool:
    return lang.split("-")[0].lower() == "ja"


class KokoroVoice:
    """Speaks one clause at a time; the model is loaded once and warmed at start-up."""

    sample_rate = SAMPLE_RATE
    short_first_piece = True
    """Its time grows with the text: a short first piece plays sooner."""

    def __init__(
        self,
        kokoro: object,
        voices: Mapping[str, Voice],
        default_lang: str,
        speed: float,
        japanese_g2p: Callable[[str], str] | None,
        decoder: StreamingDecoder | None = None,
    ) -> None:
        self.kokoro = kokoro
        self.voices = dict(voices)
        self.default_lang = default_lang
        self.speed = speed
        self.japanese_g2p = japanese_g2p
        self.decoder = decoder
        """The split model, streamed; None: the whole model through kokoro-onnx."""

    def unavailable(self, lang: str) -> str:
        """Why a turn in ``lang`` cannot be spoken (a part its voice needs is not installed),
        or ''."""
        voice = voice_for(self.voices, lang, self.default_lang)
        g2p = self.japanese_g2p if is_japanese(voice.lang) else None
        return g2p.reason if isinstance(g2p, MissingReadings) else ""

    def phonemes(self, text: str, lang: str) -> str:
        """What the model is given for ``text`` in the turn's language ``lang``."""
        voice = voice_for(self.voices, lang, self.default_lang)
        if is_japanese(voice.lang) and self.japanese_g2p is not None:
            return self.japanese_g2p(text)
        return str(self.kokoro.tokenizer.phonemize(text, voice.lang))  # type: ignore[attr-defined]

    def synthesize(self, text: str, lang: str) -> Samples:
        if self.decoder is not None:
            return _joined(list(self._split_model(text, lang, None)))
        voice = voice_for(self.voices, lang, self.default_lang)
        phonemes = self.phonemes(text, lang)
        if not phonemes.strip():
            return np.zeros(0, dtype=np.float32)  # only punctuation or symbols: nothing to say
        samples, _ = self.kokoro.create(  # type: ignore[attr-defined]
            phonemes, voice.style, speed=self.speed, is_phonemes=True
        )
        return np.asarray(samples, dtype=np.float32)

    def stream(self, text: str, lang: str, queued: float) -> Iterator[Samples]:
        """``text`` in chunks, the first as soon as it can be ready: ``queued`` seconds of
        audio wait to play meanwhile (see :mod:`services.tts.kokoro.stream`)."""
        if self.decoder is None:
            yield self.synthesize(text, lang)
        else:
            yield from self._split_model(text, lang, queued)

    def _split_model(self, text: str, lang: str, queued: float | None) -> Iterator[Samples]:
        """Through the split model: decoded whole when ``queued`` is None."""
        from kokoro_onnx.chunker import split_phonemes
        from kokoro_onnx.config import MAX_PHONEME_LENGTH

        assert self.decoder is not None
        voice = voice_for(self.voices, lang, self.default_lang)
        phonemes = self.phonemes(text, lang)
        for batch in split_phonemes(phonemes, MAX_PHONEME_LENGTH) if phonemes.strip() else []:
            tokens = self.kokoro.tokenizer.tokenize(batch)  # type: ignore[attr-defined]
            if not tokens:
                raise ValueError(f"no phonemes of {batch!r} are in the model's vocabulary")
            style = voice.style[min(len(tokens), len(voice.style)) - 1]  # one row per length
            frames = self.decoder.frames(tokens, style, self.speed)
            if queued is None:
                yield self.decoder.whole(frames)
            else:
                yield from self.decoder.stream(frames, queued)


def _joined(chunks: list[Samples]) -> Samples:
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)


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
    # Every clause has its own length, and onnxruntime plans a memory pattern (one block of
    # the arena) for each input shape it sees: 435 MB of RSS after a dozen clauses with
    # them, 333 MB without, for the same CPU time (16.5 s both). Without the arena too it
    # took 20-30 % more CPU.
    options.enable_mem_pattern = False
    if not config.kokoro.spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    halves = split_model(model, cache_dir()) if config.kokoro.stream else None
    decoder = None
    try:
        if halves is None:
            session = model_session(ort, model, options)
        else:  # kokoro-onnx keeps the text half: its tokenizer and voices are what is used
            session, decoder_session = open_halves(halves, ort, options)
            decoder = StreamingDecoder(session, decoder_session)
        kokoro = Kokoro.from_session(session, str(voices_file))
    except Exception as exc:  # onnxruntime raises its own types for a broken model file
        raise VoiceError(f"cannot load Kokoro from {model} and {voices_file}: {exc}") from exc
    names = set(kokoro.voices.files)
    voices = resolve_tables(config.voice, kokoro.voices, names, str(voices_file), embedded)
    japanese = [key for key, v in voices.items() if is_japanese(v.lang)]
    g2p = japanese_reader() if japanese else None
    if isinstance(g2p, MissingReadings):  # a plain `pip install -e .`: it costs Japanese only
        log.warning("[voice.%s] not spoken: %s; the other languages speak",
                    ", voice.".join(japanese), g2p.reason)
    voice = KokoroVoice(
        kokoro, voices, config.audio.default_lang, config.kokoro.speed, g2p, decoder
    )
    for key, table in voices.items():
        if voice.unavailable(key):
            continue  # each of its turns gets an error naming the fix instead
        try:  # a language code espeak-ng does not know would only fail at the first reply
            voice.phonemes("a", key)
        except Exception as exc:
            raise VoiceError(f"[voice.{key}] lang {table.lang!r}: {exc}") from exc
    return voice


def model_session(ort: Any, model: Path | PackagedModel, options: Any) -> Any:
    """A session of the whole model (the packaged one: from its bytes, joined in memory)."""
    if not isinstance(model, PackagedModel):
        return ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
    session = ort.InferenceSession(
        model.read(), sess_options=options, providers=["CPUExecutionProvider"]
    )
    # A session made from bytes has no model path, and kokoro-onnx only checks that its
    # path exists: the first part stands for the model it starts.
    session._model_path = str(model.first_part())
    # It also keeps those bytes (88 MB of RSS), only to remake itself on another provider
    # after a provider's failure; on the CPU alone there is none to fall back to.
    session.disable_fallback()
    session._model_bytes = None
    return session


def warm_up(voice: KokoroVoice) -> None:
    """The first run is slow (allocations, kernel choice): pay it now, not at the first reply.
    With the default language's voice, else (it cannot speak) the first that can."""
    speakable = [key for key in (voice.default_lang, *voice.voices) if not voice.unavailable(key)]
    if not speakable:
        return  # no voice can speak: each turn gets an error naming the fix
    lang = speakable[0]
    japanese = is_japanese(voice_for(voice.voices, lang, voice.default_lang).lang)
    voice.synthesize("はい。" if japanese else "Hello.", lang)
    if voice.decoder is not None:  # without it, stream() is synthesize() again
        sentence = "はい、今日はいい天気ですね。" if japanese else "Hello, how are you today?"
        for _ in voice.stream(sentence, lang, 0.0):  # a head and a rest
            pass
        # Those first runs were slow on purpose: heads are sized on the pace from here on.
        voice.decoder.pace = SECONDS_PER_FRAME
