"""The exit statuses of ``desktop-assistant``: one meaning each, whatever the command.

A script can tell "the assistant is not running" (retry later, start it) from
"it answered no" and from "you asked wrongly" without knowing the command.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1
    """The command ran and the answer is a failure: the turn or the tool failed, a check failed."""
    USAGE = 2
    """Bad arguments or an invalid config folder: running it again the same way cannot help
    (argparse also exits 2, and the systemd units do not restart a service that exits 2)."""
    UNAVAILABLE = 3
    """No broker, or the service the command needs is missing or did not answer in time."""
    INTERRUPTED = 130
    """Ctrl-C, as a shell reports a command killed by SIGINT."""
