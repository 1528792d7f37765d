"""What ``describe`` answers: our speech to text, our voices and our wake word, from the config.

The Wyoming server reads the same config as the STT and the speaker, so what
it lists is what they load: the Whisper model and the languages it chooses among, one voice per
``[voice.<lang>]`` table (named by its key, which a client's ``synthesize``
may name), and the mic's wake word model when the wake word is installed.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from wyoming.info import (
    AsrModel,
    AsrProgram,
    Attribution,
    Info,
    TtsProgram,
    TtsVoice,
    WakeModel,
    WakeProgram,
)

from services.speech_bridge import voice_languages
from services.stt.backends import server_binary
from services.stt.service import voice_languages as stt_voice_languages
from services.stt.text import CODES
from settings.schema import Config

ATTRIBUTION = Attribution(name="desktop-assistant", url="")


def _version() -> str | None:
    try:
        return metadata.version("desktop-assistant")
    except metadata.PackageNotFoundError:
        return None


def asr_model_name(config: Config) -> str:
    whisper = config.whisper
    if uses_embedded(config):
        return f"faster-whisper {whisper.embedded_model}"
    return Path(whisper.model).stem


def uses_embedded(config: Config) -> bool:
    """Whether the STT runs the embedded model: as told, or for ``auto`` when no
    whisper-server could be started here (one already answering is not asked)."""
    whisper = config.whisper
    if whisper.backend != "auto":
        return whisper.backend == "embedded"
    return server_binary(whisper) is None or not Path(whisper.model).is_file()


def stt_languages(config: Config) -> list[str]:
    """The languages the STT chooses among: the one ``[whisper] language`` names; for
    ``auto``, those of the voices with the embedded model (English alone with an English-only
    model), or all of Whisper's with whisper-server, which detects freely."""
    language = config.whisper.language
    if language != "auto":
        return [language]
    if not uses_embedded(config):
        return sorted(CODES.values())
    model = config.whisper.embedded_model
    if model.endswith(".en"):
        return ["en"]
    return [code for code in stt_voice_languages(config) if code in CODES.values()]


def describe(config: Config, wake: tuple[str, str] | None) -> Info:
    """The ``info`` event's content; ``wake``: the wake model's id and phrase, if any."""
    languages = stt_languages(config)
    version = _version()
    asr = AsrProgram(
        name="desktop-assistant-stt", description="Whisper, through the assistant's STT",
        attribution=ATTRIBUTION, installed=True, version=version,
        models=[AsrModel(name=asr_model_name(config), description="Whisper",
                         attribution=ATTRIBUTION, installed=True, version=version,
                         languages=languages)],
    )
    tts = TtsProgram(
        name="desktop-assistant-tts", description="The assistant's own voices",
        attribution=ATTRIBUTION, installed=True, version=version,
        voices=[TtsVoice(name=key, description=f"the {key} voice", attribution=ATTRIBUTION,
                         installed=True, version=version, languages=langs)
                for key, langs in voice_languages(config).items()],
        supports_synthesize_streaming=True,
    )
    programs = []
    if wake is not None:
        model, phrase = wake
        programs.append(WakeProgram(
            name="desktop-assistant-wake", description="microWakeWord, as the mic uses it",
            attribution=ATTRIBUTION, installed=True, version=version,
            models=[WakeModel(name=model, description=phrase, phrase=phrase,
                              attribution=ATTRIBUTION, installed=True, version=version,
                              languages=["en"])],
        ))
    return Info(asr=[asr], tts=[tts], wake=programs)
