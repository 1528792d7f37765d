"""The Wyoming server's side of the bus: an utterance to the STT, text to the TTS, and
their answers back to the client that asked (the satellites ask the same way: the
bridge itself is shared, in ``services/speech_bridge.py``)."""

from __future__ import annotations

from services.speech_bridge import RATE, BridgeError, SpeechBridge

__all__ = ["RATE", "BridgeError", "WyomingBridge"]


class WyomingBridge(SpeechBridge):
    """Sends the Wyoming clients' requests onto the bus and hands each answer to its asker."""
