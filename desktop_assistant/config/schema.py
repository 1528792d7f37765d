"""The schema of ``config.toml``: every key, its type and its built-in default.

Every table forbids unknown keys, so a typo is an error that names the key
instead of a silent fall back to a default. Each service's keys live in its
own table; docs/config.md documents them all (a test keeps them in step).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Table(BaseModel):
    """A config table: strict types, unknown keys rejected, immutable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class BusConfig(Table):
    pub: str = ""
    """Endpoint where publishers connect (the broker's XSUB); empty = ipc default."""
    sub: str = ""
    """Endpoint where subscribers connect (the broker's XPUB); empty = ipc default."""
    heartbeat: float = Field(1.0, gt=0)
    """Seconds between heartbeats of every process."""


class WhisperConfig(Table):
    backend: str = Field("auto", pattern="^(auto|server|embedded)$")
    model: str = "/data/voice-models/whisper/ggml-large-v3-turbo-q5_0.bin"
    server: str = "whisper-server"
    """The whisper-server binary (a path, or a name looked up in PATH)."""
    device: int = 0
    """GPU index for whisper-server."""
    host: str = "127.0.0.1"
    port: int = Field(8182, ge=1, le=65535)
    timeout: float = Field(15.0, gt=0)
    """Seconds to wait for one transcription."""
    language: str = "auto"


class KokoroConfig(Table):
    model: str = "/data/voice-models/kokoro/kokoro-v1.0.onnx"
    """The Kokoro ONNX model; when the file is absent, the embedded int8 model."""
    voices: str = "/data/voice-models/kokoro/voices-v1.0.bin"
    """The voices file (npz); when absent, the embedded Japanese voices."""
    speed: float = Field(1.0, ge=0.5, le=2.0)
    """Speaking speed (espeak-ng: 175 words a minute times this)."""
    threads: int = Field(2, ge=1)
    """onnxruntime threads for one synthesis."""


class VoiceConfig(Table):
    lang: str
    """Kokoro's language code (``en-us``, ``it``, ``ja``...)."""
    blend: dict[str, float]
    """Style name → weight; the style arrays are blended as a weighted sum."""


class VadConfig(Table):
    threshold: float = Field(0.5, gt=0, lt=1)
    pre_roll: float = Field(0.3, ge=0)
    """Seconds of audio kept from just before speech started."""
    silence: float = Field(0.5, gt=0)
    """End-of-speech window: seconds of silence that end an utterance."""
    min_speech: float = Field(0.25, ge=0)
    max_utterance: float = Field(15.0, gt=0)
    deaf_tail: float = Field(0.3, ge=0)
    """Seconds the mic stays deaf after the assistant stops speaking."""


class ListenConfig(Table):
    mode: str = Field("always", pattern="^(always|push)$")
    follow_up: float = Field(6.0, ge=0)
    """Push-to-talk: seconds the mic stays open for a follow-up question."""


class AudioConfig(Table):
    output: str = ""
    """Output device (substring of its name); empty = the system default."""
    volume: float = Field(1.0, ge=0.0, le=2.0)
    """Initial playback volume when no saved volume exists."""
    ack_tone: bool = True
    """A short soft tone before the first piece of a reply."""
    default_lang: str = "en"
    """Voice used when the turn's language has no ``[voice.*]`` table."""


class DialogueConfig(Table):
    model: str = ""
    """Model name sent to the LLM server (Ollama needs one)."""
    timeout: float = Field(60.0, gt=0)
    """Seconds to wait for the LLM's stream (connect and between chunks)."""
    history: int = Field(20, ge=0)
    """Messages of conversation kept per session."""
    lang: str = "en"
    """Language of text turns when none is given."""


class ToolsConfig(Table):
    cpu_seconds: int = Field(10, ge=1)
    memory_mb: int = Field(512, ge=16)
    file_size_mb: int = Field(16, ge=0)
    processes: int = Field(64, ge=1)
    output_bytes: int = Field(65536, ge=2000)
    """Most bytes of a tool's output read before it is stopped."""


class BrainConfig(Table):
    host: str = "127.0.0.1"
    port: int = Field(8183, ge=1, le=65535)
    token: str = ""
    """Bearer token required when ``host`` is not loopback."""


def default_voices() -> dict[str, VoiceConfig]:
    """The built-in ``[voice.*]`` tables (the TTS service knows a table left as built)."""
    return {
        "it": VoiceConfig(lang="it", blend={"if_sara": 0.8, "af_bella": 0.2}),
        "en": VoiceConfig(lang="en-us", blend={"af_heart": 1.0}),
        "ja": VoiceConfig(lang="ja", blend={"jf_alpha": 1.0}),
    }


class Config(Table):
    """The whole ``config.toml``."""

    card: str = "Microphone"
    """The mic: matched against the input device names sounddevice reports."""
    llm: str = "http://localhost:8181/v1"
    system: str = "You are a voice assistant. Answer briefly, in plain spoken sentences."
    tool_rounds: int = Field(3, ge=0)
    bus: BusConfig = BusConfig()
    whisper: WhisperConfig = WhisperConfig()
    kokoro: KokoroConfig = KokoroConfig()
    voice: dict[str, VoiceConfig] = Field(default_factory=default_voices)
    vad: VadConfig = VadConfig()
    listen: ListenConfig = ListenConfig()
    audio: AudioConfig = AudioConfig()
    dialogue: DialogueConfig = DialogueConfig()
    tools: ToolsConfig = ToolsConfig()
    brain: BrainConfig = BrainConfig()
    env: dict[str, str] = Field(default_factory=dict)
    """Added to every tool's environment (personal values, key file paths)."""
