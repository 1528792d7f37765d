"""The names processes take on the bus: in heartbeats, in ``Error.service``, as ``Message.src``.

One place for them, so a service that listens for another's heartbeat cannot
spell it differently from the one that sends it.
"""

from __future__ import annotations

BROKER = "broker"
"""The broker's heartbeat (sent by ``python -m bus``, which imports nothing of the services)."""
MIC = "mic"
STT = "stt"
DIALOGUE = "dialogue"
TOOLS = "tools"
SPEAKER = "tts"
"""``services.tts`` takes this name whichever engine speaks (``--engine kokoro|espeak``): swapping
one for the other changes nothing for the rest of the assistant."""
WATCHDOG = "watchdog"
BRAIN = "brain"
WYOMING = "wyoming"
SATELLITES = "satellites"

LOCAL_SESSION = "local"
"""The session of the voice turns this machine's mic hears."""
HTTP_SESSIONS = "brain:"
"""The prefix of the brain's sessions on the bus: HTTP sessions live apart from the local
voice session and the command line's, and only they count against the history's file cap."""
