"""desktop-assistant: the configuration and the command line shared by every process."""

__version__ = "0.1.0"
