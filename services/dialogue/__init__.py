"""The dialogue service: the streaming LLM tool loop (seed 000) and voice volume (seed 003)."""
