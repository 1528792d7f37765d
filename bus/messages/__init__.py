"""Every message type of the bus contract, registered on import.

Importing this package fills the closed registry in :mod:`bus.registry`;
``docs/bus.md`` documents each topic and field (a test keeps them in step).
"""

from bus.messages.audio import ListenRequest, SpeechEnded, SpeechStarted, Utterance
from bus.messages.dialogue import (
    Ask,
    ClearHistory,
    Control,
    HistoryCleared,
    Reply,
    Say,
    Speculation,
    TraceMark,
)
from bus.messages.speech import Speaking, Spoken, VolumeCommand, VolumeState
from bus.messages.stt import SpeculativeTranscript, Transcript
from bus.messages.system import Error, Heartbeat, Probe, TurnDropped
from bus.messages.tools import CatalogRequest, ToolCall, ToolCatalog, ToolResult

__all__ = [
    "Ask",
    "CatalogRequest",
    "ClearHistory",
    "Control",
    "Error",
    "Heartbeat",
    "HistoryCleared",
    "ListenRequest",
    "Probe",
    "Reply",
    "Say",
    "Speaking",
    "Speculation",
    "SpeculativeTranscript",
    "SpeechEnded",
    "SpeechStarted",
    "Spoken",
    "ToolCall",
    "ToolCatalog",
    "ToolResult",
    "TraceMark",
    "Transcript",
    "TurnDropped",
    "Utterance",
    "VolumeCommand",
    "VolumeState",
]
