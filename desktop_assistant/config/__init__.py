"""The config folder: one typed, validated object built once at start-up."""

from desktop_assistant.config.loader import ConfigError, config_dir, load_config
from desktop_assistant.config.schema import Config

__all__ = ["Config", "ConfigError", "config_dir", "load_config"]
