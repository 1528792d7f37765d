"""Speech to text: the backends (whisper-server, embedded faster-whisper) behind one door,
``backends.py``, with no bus code in them; the STT service, ``doctor`` and the Wyoming
server come through it."""
