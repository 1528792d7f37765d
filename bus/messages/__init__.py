"""Every message type of the bus contract, registered on import.

One module per topic domain (``audio.*``, ``stt.*``, ``dialogue.*``, ``tts.*``,
``control.*``, ``tools.*``, ``trace.*``, ``sys.*``). Importing this package fills
the closed registry in :mod:`bus.registry`; ``docs/bus.md`` documents each topic
and field (a test keeps them in step).
"""

from bus.messages.audio import (
    BargeIn,
    ListenClosed,
    ListenModeRequest,
    ListenModeState,
    ListenRequest,
    SpeechEnded,
    SpeechResumed,
    SpeechStarted,
    Utterance,
    WakeWordHeard,
)
from bus.messages.control import ActionRequest
from bus.messages.dialogue import (
    ClearHistoryRequest,
    HistoryCleared,
    QuestionRequest,
    ReminderRequest,
    ReminderSet,
    Reply,
    Speculation,
    TextPiece,
)
from bus.messages.stt import SpeculativeTranscript, Transcript
from bus.messages.system import Error, Heartbeat, Probe, TurnDropped
from bus.messages.tools import (
    ToolCatalog,
    ToolCatalogRequest,
    ToolRequest,
    ToolResult,
    ToolSpec,
)
from bus.messages.trace import TraceMark
from bus.messages.tts import (
    Interrupted,
    Played,
    Speaking,
    SpeakRequest,
    Spoken,
    SynthesizeRequest,
    TtsAudio,
    VolumeRequest,
    VolumeState,
)

__all__ = [
    "ActionRequest",
    "BargeIn",
    "ClearHistoryRequest",
    "Error",
    "Heartbeat",
    "HistoryCleared",
    "Interrupted",
    "Played",
    "ListenClosed",
    "ListenModeRequest",
    "ListenModeState",
    "ListenRequest",
    "Probe",
    "QuestionRequest",
    "ReminderRequest",
    "ReminderSet",
    "Reply",
    "SpeakRequest",
    "Speaking",
    "Speculation",
    "SpeculativeTranscript",
    "SpeechEnded",
    "SpeechResumed",
    "SpeechStarted",
    "Spoken",
    "SynthesizeRequest",
    "TextPiece",
    "ToolCatalog",
    "ToolCatalogRequest",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "TraceMark",
    "Transcript",
    "TtsAudio",
    "TurnDropped",
    "Utterance",
    "VolumeRequest",
    "VolumeState",
    "WakeWordHeard",
]
