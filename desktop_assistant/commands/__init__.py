"""One module per ``desktop-assistant`` subcommand, each with ``register(subparsers)``."""
