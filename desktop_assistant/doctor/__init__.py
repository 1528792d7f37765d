"""``desktop-assistant doctor``: check every part and say how to fix what is wrong."""
