"""The side of a remote voice UI: a client of the brain's HTTP API, and its volume control."""
