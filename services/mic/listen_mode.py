"""The listen mode changed while the mic runs: ``ListenModeRequest`` in (the page's control,
``desktop-assistant listen --mode``), ``ListenModeState`` out.

The change lasts until the mic restarts: ``[listen] mode`` in ``config.toml`` is the mode
it starts with, and nothing here writes that file. A mode picked for the moment (push to
talk through a call) should not outlive it unnoticed, and the config stays the user's own
text (``docs/listening.md``, "Changing the mode while the mic runs").

A mode is two switches: whether the mic opens on demand (``PushToTalk.on_demand``), and
in wake mode only, the detector hearing every block (``Hearing.wake_word``). A mic started
in another mode has no detector: it is loaded the first time wake mode is asked for, and
kept for a later switch back.
"""

from __future__ import annotations

import logging

from bus.client import Bus
from bus.messages import ListenModeRequest, ListenModeState
from bus.messages.audio import LISTEN_MODES
from services.mic.backends import WakeLoader
from services.mic.barge_in import BargeIns
from services.mic.gate import Gate
from services.mic.hearing import Hearing
from services.mic.wake_word import WakeWord

log = logging.getLogger(__name__)

NO_WORD = "the mic opens only for `desktop-assistant listen` until it can"


class ListenModes:
    def __init__(
        self, bus: Bus, mode: str, loader: WakeLoader | None, gate: Gate, hearing: Hearing,
        barge_ins: BargeIns,
    ) -> None:
        self.bus = bus
        self.mode = mode
        self.loader = loader
        self.gate = gate
        self.hearing = hearing
        self.barge_ins = barge_ins
        self.wake_word: WakeWord | None = hearing.wake_word
        """The detector's user once loaded: kept while another mode is on."""

    def request(self, msg: ListenModeRequest) -> None:
        """Switch to the mode ``msg`` asks for (an empty one: only say which is on). An
        unknown mode is refused with the reason, and the mic goes on as it was."""
        error = ""
        if msg.mode not in ("", *LISTEN_MODES):
            error = (f"unknown listen mode {msg.mode!r}: the modes are "
                     f"{', '.join(LISTEN_MODES)}; the mode stays {self.mode}")
            log.warning("listen mode request refused: %s", error)
        elif msg.mode and (msg.mode != self.mode or self._wordless()):
            error = self._switch(msg.mode)  # wake again, wordless: another try to load it
        elif self._wordless():
            error = f"no wake word detector is loaded; {NO_WORD}"
        self.bus.publish(ListenModeState(mode=self.mode, error=error, reply_to=msg.id))

    def _wordless(self) -> bool:
        """In wake mode without a detector (its package was missing when it was loaded)."""
        return self.mode == "wake" and self.hearing.wake_word is None

    def _switch(self, mode: str) -> str:
        error = self._load_word() if mode == "wake" else ""
        self.hearing.listen_for(self.wake_word if mode == "wake" else None)
        self.gate.push.set_mode(mode)
        log.info("listen mode %s (was %s) until the mic restarts", mode, self.mode)
        self.mode = mode
        return error

    def _load_word(self) -> str:
        """The detector ready to hear; why not, if it cannot load (wake mode then opens for
        the key alone, as a mic started without the package does)."""
        if self.wake_word is not None:
            self.wake_word.reset()
            return ""
        if self.loader is None:
            return f"this mic has no wake word detector to load; {NO_WORD}"
        try:
            detector, earcon, why = self.loader.load()
        except Exception as exc:  # e.g. a model file removed since the start: the mic goes on
            log.exception("mic: the wake word detector failed to load")
            detector, why = None, f"{type(exc).__name__}: {exc}"
        if detector is None:
            return f"the wake word detector cannot load ({why}); {NO_WORD}"
        self.wake_word = WakeWord(self.bus, detector, earcon, self.gate, self.barge_ins,
                                  self.hearing.turns)
        self.barge_ins.detect(detector.word)
        return ""
