"""The config folder: one typed, validated object built once at start-up."""

from settings.loader import ConfigError, config_dir, load_config
from settings.schema import Config

__all__ = ["Config", "ConfigError", "config_dir", "load_config"]
