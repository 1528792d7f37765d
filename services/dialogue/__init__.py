"""The dialogue service: the streaming LLM tool loop and the voice volume tool."""
