"""The brain: the HTTP API of seed 003 for other user interfaces, bridged onto the bus."""
