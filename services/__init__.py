"""The processes of the assistant, one package each (``python -m services.<name>``)."""
