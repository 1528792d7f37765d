"""Private by default: a whole spoken turn works in a network namespace with only loopback.

Embedded STT (Whisper tiny.en) and TTS (Kokoro), the scripted LLM on
127.0.0.1, the mic and speaker on the virtual sound card: nothing of the
assistant needs to reach out, and inside the namespace nothing could. Only
tools that say they use the network (weather, search) would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.processes import ROOT, python_env
from tests.helpers.words import words
from tests.system.reliability.offline_turn import ANSWER
from tests.system.reliability.whole import QUESTION


def test_a_whole_spoken_turn_needs_nothing_but_loopback(tmp_path: Path) -> None:
    result_path = tmp_path / "result.json"
    # As root a new network namespace; otherwise one inside a new user namespace.
    unshare = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]
    done = subprocess.run(
        [*unshare, sys.executable, "-m", "tests.system.reliability.offline_turn", str(result_path)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(result_path.read_text())
    assert result["interfaces"] == ["lo"]
    assert "unreachable" in result["outside"].lower(), result["outside"]
    assert words(result["transcript"]) == words(QUESTION)
    assert result["spoken"] == ANSWER and result["duration"] > 1.0
