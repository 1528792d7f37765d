"""``python -m services.tts_espeak``: speak the assistant's replies with espeak-ng."""

from __future__ import annotations

import sys

from services.speaker.main import run_tts
from services.tts_espeak.espeak import load_espeak

if __name__ == "__main__":
    sys.exit(run_tts("tts_espeak", "Speak the assistant's replies with espeak-ng.", load_espeak))
