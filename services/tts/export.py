"""Audio for someone other than the sound card: a SynthesizeRequest answered in TtsAudio chunks.

The Wyoming server asks for speech it sends to its own client (Home Assistant
plays it on a satellite). The speaker synthesizes it with the same voice and
the same worker as its own speech, and this gathers the audio into pieces of
about half a second: a chunk the listener can start playing soon, and a bus
message far below the size limit whatever the length of the text.
"""

from __future__ import annotations

from collections.abc import Callable

from bus.messages import SynthesizeRequest, TtsAudio
from services.tts.playback import Segment

CHUNK_SECONDS = 0.5


class Export:
    """One request's audio on its way back; also the marker that ends its synthesis job."""

    def __init__(
        self, request: SynthesizeRequest, rate: int, publish: Callable[[TtsAudio], None]
    ) -> None:
        self.request = request
        self.rate = rate
        self._publish = publish
        self._chunk_bytes = int(rate * CHUNK_SECONDS) * 2
        self._buffer = bytearray()
        self._seq = 0
        self.error = ""

    def take(self, segment: Segment) -> None:
        """A segment from the synthesis worker (in the bus loop): audio, or this marker."""
        if segment.tag is self:
            self._send(bytes(self._buffer), final=True)
            self._buffer.clear()
            return
        self._buffer += segment.pcm
        while len(self._buffer) >= self._chunk_bytes:
            self._send(bytes(self._buffer[: self._chunk_bytes]), final=False)
            del self._buffer[: self._chunk_bytes]

    def fail(self, error: str) -> None:
        """A piece could not be synthesized: the rest goes on, the final chunk says why."""
        self.error = self.error or error

    def _send(self, pcm: bytes, final: bool) -> None:
        self._publish(
            TtsAudio(pcm=pcm, rate=self.rate, seq=self._seq, final=final,
                     error=self.error if final else "", reply_to=self.request.id,
                     turn=self.request.turn)
        )
        self._seq += 1
