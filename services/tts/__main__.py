"""``python -m services.tts``: speak the assistant's replies with Kokoro."""

from __future__ import annotations

import sys

from services.speaker.main import run_tts
from services.tts.kokoro_voice import load_kokoro

if __name__ == "__main__":
    sys.exit(run_tts("tts", "Speak the assistant's replies with Kokoro.", load_kokoro))
