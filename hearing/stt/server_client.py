"""The whisper-server backend: whisper.cpp's HTTP API (``POST /inference``, ``GET /health``)."""

from __future__ import annotations

import io
import logging
import wave
from typing import Any

import httpx

from hearing.stt.engine import Recognized, Stop, SttFailed, SttUnavailable, give_up_if
from hearing.stt.languages import iso_code
from settings.schema import WhisperConfig

log = logging.getLogger(__name__)


def wav_bytes(pcm: bytes, rate: int) -> bytes:
    """PCM16 mono as a WAV file (what every whisper-server build reads)."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)
    return out.getvalue()


class WhisperServerClient:
    def __init__(self, config: WhisperConfig) -> None:
        self.url = f"http://{config.host}:{config.port}"
        self.language = config.language
        self.timeout = config.timeout
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(config.timeout, connect=2.0))

    async def health(self) -> str:
        """``ok``, ``loading`` (503 while the model loads) or ``down`` (nothing answers)."""
        try:
            answer = await self._http.get(f"{self.url}/health", timeout=2.0)
        except httpx.HTTPError:
            return "down"
        if answer.status_code == 200:
            return "ok"
        return "loading" if answer.status_code == 503 else "down"

    async def transcribe(
        self, pcm: bytes, rate: int, usual: str | None = None, stop: Stop | None = None
    ) -> Recognized:
        # ``usual`` is not sent: whisper-server takes one language or detects it by itself.
        # A request once sent runs to its end on the server: ``stop`` is looked at before.
        give_up_if(stop)
        files = {"file": ("utterance.wav", wav_bytes(pcm, rate), "audio/wav")}
        form = {"language": self.language, "response_format": "verbose_json"}
        try:
            answer = await self._http.post(f"{self.url}/inference", files=files, data=form)
        except httpx.TimeoutException:
            raise SttUnavailable(
                f"whisper-server at {self.url} took longer than {self.timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise SttUnavailable(f"whisper-server at {self.url} is not reachable: {exc}") from None
        if answer.status_code == 503:
            raise SttUnavailable(f"whisper-server at {self.url} is still loading its model")
        body = _json(answer)
        if answer.status_code != 200:
            reason = body.get("error") if body else answer.text[:200]
            raise SttFailed(f"whisper-server answered {answer.status_code}: {reason}")
        if body is None or not isinstance(body.get("text"), str):
            raise SttFailed(f"whisper-server answered without a text: {answer.text[:200]!r}")
        language = body.get("language") or body.get("detected_language") or ""
        lang = iso_code(language) if isinstance(language, str) else None
        if lang is None and self.language != "auto":
            lang = iso_code(self.language)
        return Recognized(body["text"].strip(), lang)

    async def close(self) -> None:
        await self._http.aclose()


def _json(answer: httpx.Response) -> dict[str, Any] | None:
    try:
        body = answer.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
