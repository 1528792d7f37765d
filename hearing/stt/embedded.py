"""The embedded backend: faster-whisper in this process, loaded once and warmed up."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from hearing.stt.backends import Load, Readiness, Report, spoken_languages
from hearing.stt.engine import Backend, Recognized, Stop, SttFailed, give_up_if
from hearing.stt.languages import CODES, iso_code
from hearing.stt.packaged import (
    BASE_LABEL,
    MULTILINGUAL,
    NAMES,
    PackagedModelError,
    model_folder,
    model_source,
)
from hearing.stt.short_window import Heard, ShortWindow
from settings.schema import Config, WhisperConfig

log = logging.getLogger(__name__)
logging.getLogger("faster_whisper").setLevel(logging.WARNING)  # one INFO line per utterance

RATE = 16000
WHOLE_WINDOW = 30.0
"""Seconds of audio Whisper's encoder was trained on."""


class EmbeddedWhisper:
    """faster-whisper on the CPU; one transcription at a time on its own thread, so the
    service's loop never waits on the model.

    ``languages`` are those the assistant can answer in (its voice tables): a
    multilingual model with ``[whisper] language = "auto"`` chooses among them
    for each utterance, since Whisper's free choice among its 99 languages is
    often wrong on a short question. Empty: any language Whisper knows.

    Registered in :data:`hearing.stt.backends.BACKENDS` as ``embedded``: the classmethods
    are its door."""

    @classmethod
    def readiness(cls, config: WhisperConfig, live: bool) -> Readiness:
        """The packaged model (or the folder ``[whisper] embedded_model`` names) is there."""
        name = config.embedded_model or MULTILINGUAL
        try:
            path, files = model_source(name)
        except (PackagedModelError, ImportError) as exc:  # a package is missing or broken
            return Readiness(False, f"no embedded model {name!r}: {exc}",
                             "run ./bootstrap setup (installs the packaged models) or set "
                             "[whisper]")
        if files is None and not (Path(path) / "model.bin").is_file():
            what = "packaged" if name in NAMES else "[whisper] embedded_model"
            return Readiness(False, f"{what} {name}: no CTranslate2 model.bin in {path}",
                             f"set [whisper] embedded_model to {' or '.join(NAMES)}, or a "
                             "CTranslate2 folder")
        return Readiness(True, f"embedded faster-whisper {path if files else name + ' ' + path}")

    @classmethod
    def model_name(cls, config: WhisperConfig) -> str:
        return f"faster-whisper {config.embedded_model}"

    @classmethod
    def auto_languages(cls, config: Config) -> list[str]:
        """Those of the voices Whisper knows; English alone with an English-only model."""
        if config.whisper.embedded_model.endswith(".en"):
            return ["en"]
        return [code for code in spoken_languages(config) if code in CODES.values()]

    @classmethod
    async def open(
        cls, config: WhisperConfig, report: Report, languages: Sequence[str], load: Load
    ) -> Backend:
        backend: EmbeddedWhisper = await load(cls, config, languages)  # SIGTERM does not wait
        report("ready", "")
        return backend

    def __init__(self, config: WhisperConfig, languages: Sequence[str] = ()) -> None:
        from faster_whisper import WhisperModel

        started = time.perf_counter()
        with model_folder(config.embedded_model) as folder:
            self.model = WhisperModel(
                folder, device="cpu", compute_type="int8", cpu_threads=config.threads
            )
        self.beam_size = config.beam_size
        self.languages = allowed_languages(config.language, languages, self.model)
        self.short = (
            ShortWindow(self.model, self.languages, config.window, config.beam_size)
            if self.languages and config.window < WHOLE_WINDOW
            else None
        )
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="whisper")
        # Warm-up, both ways: the first real question is as fast as the next ones.
        silence = np.zeros(RATE, dtype=np.float32)
        self._whole(silence)
        self.transcribe_now(bytes(2 * RATE))
        name = config.embedded_model or MULTILINGUAL
        log.info("embedded whisper: %s loaded in %.2f s; languages %s",
                 BASE_LABEL if name == MULTILINGUAL else name,
                 time.perf_counter() - started, ", ".join(self.languages) or "any")

    def transcribe_now(
        self, pcm: bytes, usual: str | None = None, stop: Stop | None = None
    ) -> Recognized:
        """Transcribe 16 kHz PCM16 on the calling thread (blocks for the model's time);
        a brief utterance keeps the ``usual`` language in a close call. Once ``stop`` is
        set the run gives up (:class:`Superseded`) before its next step: the short window,
        a tie's whole window, the language detection, the whole window."""
        give_up_if(stop)  # superseded while it waited for this thread
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        language = None
        if self.short is not None:
            heard = self.short.transcribe(audio, usual, stop)
            if isinstance(heard, Heard):
                return Recognized(heard.text, heard.lang)
            language = heard.lang if heard is not None else None
        return self._whole(audio, language, stop)

    def _whole(
        self, audio: np.ndarray, language: str | None = None, stop: Stop | None = None
    ) -> Recognized:
        """faster-whisper as it is: 30 s windows, in ``language`` or else the likeliest
        allowed one."""
        give_up_if(stop)
        language = language or self._likeliest(audio)
        give_up_if(stop)  # (the detection encoded the whole window once already)
        segments, info = self.model.transcribe(
            audio,
            language=language,
            beam_size=self.beam_size,
            without_timestamps=True,
            condition_on_previous_text=False,
            # No temperature fallback: a re-decode costs more than the rare word it saves
            # on a short question.
            temperature=0.0,
        )
        text = "".join(segment.text for segment in segments).strip()
        return Recognized(text, iso_code(info.language))

    def _likeliest(self, audio: np.ndarray) -> str | None:
        """The allowed language Whisper's detection ranks first; None lets it choose any."""
        if len(self.languages) < 2:
            return self.languages[0] if self.languages else None
        _, _, ranked = self.model.detect_language(audio)
        return next((code for code, _ in ranked if code in self.languages), self.languages[0])

    async def transcribe(
        self, pcm: bytes, rate: int, usual: str | None = None, stop: Stop | None = None
    ) -> Recognized:
        if rate != RATE:
            raise SttFailed(f"the embedded model takes {RATE} Hz audio, got {rate} Hz")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, self.transcribe_now, pcm, usual,
                                              stop)
        except (RuntimeError, ValueError) as exc:  # what CTranslate2 raises on a bad run
            raise SttFailed(f"faster-whisper: {exc}") from exc

    async def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)


def allowed_languages(setting: str, voices: Sequence[str], model: Any) -> list[str]:
    """The languages to choose among: the one ``[whisper] language`` names, English for an
    English-only model, else those of ``voices`` that Whisper knows (empty: any)."""
    if not model.model.is_multilingual:
        return ["en"]
    if setting != "auto":
        return [setting]
    known = set(model.supported_languages)
    return sorted({code for code in voices if code in known})
