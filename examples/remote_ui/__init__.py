"""The voice-UI side of seed 003: a client of the brain's HTTP API, and its volume control."""
