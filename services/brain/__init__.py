"""The brain: the HTTP API for other user interfaces (a remote voice UI), bridged onto the bus."""
