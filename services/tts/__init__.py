"""``python -m services.tts``: Kokoro (kokoro-onnx) behind the shared speaker."""
