"""One whole spoken turn, run inside a network namespace with only loopback (see
``test_private.py``): ``python -m tests.system.reliability.offline_turn RESULT.json``.

It brings loopback up, checks that nothing else is reachable, starts the
whole assistant (embedded STT and TTS, the scripted LLM on 127.0.0.1), asks a
spoken question and writes what happened to RESULT.json.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

from bus.messages import Spoken, Transcript
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.system.reliability.whole import QUESTION, Voice

ANSWER = "It will be sunny in Rome tomorrow."


def outside_reachable() -> str:
    """What happens when something tries to reach a public address from here."""
    try:
        with socket.create_connection(("1.1.1.1", 443), timeout=3):
            return "connected"
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"


def main(result_path: Path) -> int:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True, timeout=10)
    interfaces = subprocess.run(
        ["ip", "-o", "link"], check=True, timeout=10, capture_output=True, text=True
    ).stdout
    result: dict[str, object] = {
        "interfaces": [line.split(":")[1].strip() for line in interfaces.splitlines()],
        "outside": outside_reachable(),
    }
    with Assistant() as assistant:
        assistant.llm.script(c.text(ANSWER))

        async def turn() -> None:
            async with Recorder(assistant) as rec:
                voice = Voice(assistant, rec)
                heard = await voice.heard(voice.play(QUESTION))
                transcript = await rec.until(Transcript, lambda m: m.turn == heard, 60)
                spoken = await rec.until(Spoken, lambda m: m.turn == heard, 60)
                await voice.played()
                result.update(transcript=transcript.text, spoken=spoken.text,
                              duration=spoken.duration)

        try:
            asyncio.run(turn())
        finally:
            result["logs"] = assistant.logs()
    result_path.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
