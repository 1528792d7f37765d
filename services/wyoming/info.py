"""What ``describe`` answers: our speech to text, our voices and our wake word, from the config.

The Wyoming server reads the same config as the STT and the speaker, so what
it lists is what they load: the Whisper model and the languages it chooses among, one voice per
``[voice.<lang>]`` table (named by its key, which a client's ``synthesize``
may name), and the mic's wake word model when the wake word is installed.
"""

from __future__ import annotations

from importlib import metadata

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

from hearing.stt.backends import choose, recognized_languages
from services.base.speech_bridge import voice_languages
from settings.schema import Config

ATTRIBUTION = Attribution(name="desktop-assistant", url="")


def _version() -> str | None:
    try:
        return metadata.version("desktop-assistant")
    except metadata.PackageNotFoundError:
        return None


def asr_model_name(config: Config) -> str:
    """The model of the backend a start would choose (``hearing/stt/backends.py``)."""
    return choose(config.whisper).kind.model_name(config.whisper)


def describe(config: Config, wake: tuple[str, str] | None) -> Info:
    """The ``info`` event's content; ``wake``: the wake model's id and phrase, if any."""
    languages = recognized_languages(config)
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
            name="desktop-assistant-wake", description=f"{config.wake.engine}, as the mic uses it",
            attribution=ATTRIBUTION, installed=True, version=version,
            models=[WakeModel(name=model, description=phrase, phrase=phrase,
                              attribution=ATTRIBUTION, installed=True, version=version,
                              languages=["en"])],
        ))
    return Info(asr=[asr], tts=[tts], wake=programs)
