"""The Wyoming server: our speech to text, text to speech and wake word for Home Assistant."""
