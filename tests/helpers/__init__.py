"""Shared test helpers: real processes, a real broker, real sockets."""
