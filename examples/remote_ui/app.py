"""The control application of a voice UI, reduced to its turn logic.

A real UI hears the user and plays audio; here the words come from stdin and
the speech goes to a ``speak`` callback (print by default) so the order of
things is plain: the controls are applied first, then the reply (or the
override) is spoken, and an empty reply with a control is a silent success
that keeps the conversation going.

    python -m examples.remote_ui.app --brain http://127.0.0.1:8183
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from uuid import uuid4

import httpx

from examples.remote_ui.remote_chat import RemoteChat
from examples.remote_ui.volume import VolumeControl


class VoiceApp:
    def __init__(
        self, chat: RemoteChat, volume: VolumeControl, speak: Callable[[str, float], None]
    ) -> None:
        self.chat = chat
        self.volume = volume
        self.speak = speak
        """Called with the text and the volume it plays at."""

    def turn(self, text: str) -> bool:
        """One question; returns whether the conversation goes on."""
        try:
            conversation, control = self.chat.ask(text)
        except httpx.HTTPError as error:
            self.speak(
                f"The assistant is not reachable ({type(error).__name__}).", self.volume.volume
            )
            return False
        override = self.volume.apply_control_actions(control)  # before speaking, always
        speak_text = override or conversation
        if speak_text:
            self.speak(speak_text, self.volume.volume)
        return bool(speak_text or control)


def main() -> int:
    parser = argparse.ArgumentParser(description="Talk to the brain from a terminal.")
    parser.add_argument("--brain", default="http://127.0.0.1:8183")
    parser.add_argument("--token", default="")
    parser.add_argument("--lang", default="en", help="language of the clamping messages")
    args = parser.parse_args()

    def speak(text: str, volume: float) -> None:
        print(f"[volume {volume:.1f}] {text}", flush=True)

    with RemoteChat(args.brain, session_id=str(uuid4()), token=args.token) as chat:
        app = VoiceApp(chat, VolumeControl(lang=args.lang), speak)
        for line in sys.stdin:
            if line.strip():
                app.turn(line.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
