"""The error codes of the contract: what ``Error.code`` and ``Reply.error`` hold.

One enum, so a code is produced and compared by name, never by a string typed twice.
Its members are strings, so they travel as their value and compare equal to it.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    LLM_UNAVAILABLE = "llm-unavailable"
    """No language model server answers at the configured address."""
    LLM_LOADING = "llm-loading"
    """The server answers 503: its model is still loading."""
    LLM_TIMEOUT = "llm-timeout"
    """The server took longer than ``[llm] timeout``."""
    LLM_ERROR = "llm-error"
    """The server's answer was an error, or not one the dialogue could read."""
    INTERNAL_ERROR = "internal-error"
    """A bug of ours; the turn failed, the service goes on."""
    TOOLS_UNAVAILABLE = "tools-unavailable"
    """The tool executor did not answer a call in time (the model answered without it)."""
    EMPTY_QUESTION = "empty-question"
    """A text turn with nothing but blanks."""
    QUESTION_TOO_LONG = "question-too-long"
    """A text turn longer than the dialogue reads (HTTP 413), whichever route it took."""
    REQUEST_REUSED = "request-reused"
    """A session's request id already used for another question (HTTP 409)."""
    HISTORY_CORRUPT = "history-corrupt"
    """A saved conversation could not be read and was set aside."""
    STT_UNAVAILABLE = "stt-unavailable"
    """The speech-to-text engine or server cannot be reached."""
    STT_FAILED = "stt-failed"
    """The engine failed on this utterance (or its audio was unusable)."""
    TTS_SYNTHESIS_FAILED = "tts-synthesis-failed"
    """A piece of text could not be synthesized."""
    MIC_UNAVAILABLE = "mic-unavailable"
    """The microphone cannot be opened."""
    TURN_LOST = "turn-lost"
    """A stage died while it held a voice turn (the watchdog apologizes)."""
