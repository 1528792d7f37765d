"""The espeak-ng synthesizer: one ``espeak-ng --stdout`` run per clause, text on stdin."""

from __future__ import annotations

import logging
import shutil
import struct
import subprocess

import numpy as np

from services.tts.pcm import Samples
from services.tts.voices import VoiceError, voice_for
from settings import Config

log = logging.getLogger(__name__)

BINARY = "espeak-ng"
WORDS_PER_MINUTE = 175
"""espeak-ng's own default, scaled by ``[kokoro] speed``."""
TIMEOUT = 30.0


class EspeakVoice:
    """Uses each ``[voice.<lang>]`` table's ``lang`` as the espeak-ng voice (``en-us``, ``it``)."""

    sample_rate = 22050
    short_first_piece = False
    """A clause takes it a few milliseconds: whole clauses keep their intonation."""

    def __init__(self, binary: str, langs: dict[str, str], default_lang: str, speed: float):
        self.binary = binary
        self.langs = langs
        self.default_lang = default_lang
        self.rate = str(int(WORDS_PER_MINUTE * speed))

    def synthesize(self, text: str, lang: str) -> Samples:
        voice = voice_for(self.langs, lang, self.default_lang)
        # The text goes on stdin: as an argument, a leading "-" would read as an option.
        done = subprocess.run(
            [self.binary, "--stdout", "-v", voice, "-s", self.rate],
            input=text.encode("utf-8"),
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            error = done.stderr.decode(errors="replace")[-200:]
            raise RuntimeError(f"espeak-ng failed ({done.returncode}): {error}")
        return wav_samples(done.stdout, self.sample_rate)


def wav_samples(wav: bytes, expected_rate: int) -> Samples:
    """The samples of espeak-ng's streamed WAV (its header sizes are placeholders)."""
    if wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
        raise RuntimeError("espeak-ng did not write a WAV")
    rate = struct.unpack_from("<I", wav, 24)[0]
    if rate != expected_rate:
        raise RuntimeError(f"espeak-ng wrote {rate} Hz, expected {expected_rate}")
    start = wav.find(b"data", 12) + 8
    pcm = np.frombuffer(wav[start : start + (len(wav) - start) // 2 * 2], dtype="<i2")
    return (pcm.astype(np.float32) / 32768.0).astype(np.float32)


def load_espeak(config: Config) -> EspeakVoice:
    binary = shutil.which(BINARY)
    if binary is None:
        raise VoiceError(f"{BINARY} is not installed (Debian package espeak-ng)")
    langs = {key: table.lang for key, table in config.voice.items()}
    for key, lang in langs.items():
        probe = subprocess.run(
            [binary, "-q", "-v", lang, ""], capture_output=True, timeout=TIMEOUT, check=False
        )
        if probe.returncode != 0:
            raise VoiceError(f"[voice.{key}] lang {lang!r} is not an espeak-ng voice")
    voice = EspeakVoice(binary, langs, config.audio.default_lang, config.kokoro.speed)
    voice.synthesize("Hello.", config.audio.default_lang)
    log.info("espeak-ng voices %s", langs)
    return voice
