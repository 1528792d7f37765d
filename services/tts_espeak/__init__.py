"""``python -m services.tts_espeak``: espeak-ng behind the same speaker as ``services.tts``."""
