"""One package per process of the assistant (``python -m services.<name>``)."""
