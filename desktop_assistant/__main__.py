"""``python -m desktop_assistant``: the same as the ``desktop-assistant`` command."""

import sys

from desktop_assistant.cli import main

sys.exit(main())
