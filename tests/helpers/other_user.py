"""Run a piece of a test as another user of the machine (root only): what a stranger gets."""

from __future__ import annotations

import json
import os
import pwd
from collections.abc import Callable
from typing import Any


def as_other_user(name: str, work: Callable[[], Any]) -> Any:
    """``work()``'s answer (JSON-able), run in a child process that became the user ``name``."""
    user = pwd.getpwnam(name)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child becomes the other user, works, and hands the answer back
        code = 1
        try:
            os.close(reader)
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            with os.fdopen(writer, "w") as out:
                json.dump(work(), out)
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    with os.fdopen(reader) as answer:
        result = json.load(answer)
    os.waitpid(pid, 0)
    return result
