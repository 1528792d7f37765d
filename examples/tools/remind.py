#!/usr/bin/env python3
"""Set a reminder: ``remind.py WHEN TEXT``.

WHEN is a local time, ``HH:MM`` (the next time the clock shows it) or
``YYYY-MM-DDTHH:MM``; TEXT what to be reminded of. The assistant's dialogue keeps it
with its timers and, when it is due, says it and shows a desktop notification
(``desktop-assistant remind``, which this runs, found on PATH: the tools service
puts the assistant's own programs there). Prints what was set, or the reason on
stderr (exit 1: refused, for example a time in the past; 2: bad arguments; 3: the
assistant is not running). The standard library only.
"""

import shutil
import subprocess
import sys

TIMEOUT = 8


def main(argv):
    if len(argv) != 3 or not argv[1].strip() or not argv[2].strip():
        print("usage: remind.py WHEN TEXT (both non-empty)", file=sys.stderr)
        return 2
    program = shutil.which("desktop-assistant")
    if program is None:
        print("desktop-assistant is not on PATH", file=sys.stderr)
        return 3
    when, text = argv[1].strip(), argv[2].strip()
    try:
        done = subprocess.run(
            [program, "remind", when, f"--text={text}"], capture_output=True, text=True,
            timeout=TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        print(f"the assistant did not answer within {TIMEOUT} s", file=sys.stderr)
        return 3
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr.replace("remind: ", "", 1))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
