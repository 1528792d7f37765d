"""The satellites' start: one link per ``[satellite.NAME]``, each in its own task.

Each satellite is a site: its questions go to the dialogue in the session named
after it, its answers to its own speaker at its own volume (saved across
restarts under the state folder), and its failures are apologized for in its
own room. One satellite that is slow, down or gone never holds up the others:
each link waits only on its own connection. The heartbeat's detail says how
each satellite is (``listening``, ``answering``, or why it is not connected: down,
hung up, dropped for what it sent, and when it is tried again; ``doctor`` and the
tap show it); ``degraded`` while one is not connected. Without satellites the
process idles on the bus, so the Procfile and the systemd units keep one list of
processes whatever the config.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bus.client import Bus
from bus.messages import QuestionRequest, Reply, TextPiece
from services.base.heap import give_back_freed_memory
from services.base.runner import nothing_to_check
from services.base.speech_bridge import SpeechBridge, voice_languages, wake_factory
from settings import Config
from settings.schema import WakeConfig
from settings.state import state_dir
from speaking.volume import Volume, VolumeStore

if TYPE_CHECKING:
    from hearing.wake import WakeDetector

log = logging.getLogger(__name__)


class SatelliteBridge(SpeechBridge):
    """The satellites' side of the bus: speech to text and voices as the Wyoming server asks
    for them (the shared :class:`SpeechBridge`), and questions to the dialogue, each answer
    to the link that asked.

    A satellite's question is a text turn of client type ``voice`` (so the model may
    change the volume) in the session named after the satellite: its history stays
    its own. The dialogue streams the answer's text as :class:`TextPiece`\\ s and ends
    with a :class:`Reply`; nothing of it goes to this machine's speaker."""

    async def ask(self, site: str, text: str, lang: str | None,
                  turn: str) -> AsyncGenerator[TextPiece | Reply, None]:
        """The answer's text as it streams, then its :class:`Reply`; the turn id is the
        question's id, so both pieces and reply carry it."""
        question = QuestionRequest(id=turn, turn=turn, site=site, session=site, text=text,
                                   client_type="voice", lang=lang)
        with self._asking(turn, question) as answers:
            while True:
                answer = await self._next(answers, "dialogue")
                if not isinstance(answer, TextPiece | Reply):
                    continue  # another service's error for this turn: the Reply still comes
                yield answer
                if isinstance(answer, Reply):
                    return

    def _text(self, msg: TextPiece) -> None:
        self._answer(msg.turn, msg)

    def _reply(self, msg: Reply) -> None:
        self._answer(msg.reply_to, msg)

    HANDLERS = {**SpeechBridge.HANDLERS, TextPiece: _text, Reply: _reply}


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    if not config.satellite:
        log.info("satellites: none configured ([satellite.NAME] uri = ...); idling")
        bus.set_state("ready", "no satellites")
        await asyncio.Event().wait()
    # Here, not at the top: with no satellite (the default) the process idles without numpy,
    # the models' code and the Wyoming client (28 MB of RSS).
    from hearing.endpointing import load_turn_model
    from hearing.vad import load_scorer
    from services.satellites.ear import Ear
    from services.satellites.link import SatelliteLink

    # A turn's answer may take as long as the watchdog lets any turn take.
    bridge = SatelliteBridge(bus, config.watchdog.stall)
    bridge.subscribe(bus)
    await bus.wait_connected()  # answers to our first question cannot pass us by
    wake = our_wake_word(config.wake)
    states = SiteStates(bus, list(config.satellite))
    folder = state_dir() / "satellites"
    turn_model = load_turn_model(config.vad)  # one for all: the links take turns on the loop
    for name, settings in config.satellite.items():
        if settings.wake == "ours" and wake is None:  # its every speech would be a question
            log.error("satellite %s: wake = \"ours\" needs our wake word ([wake]), which is "
                      "not installed here; not served", name)
            states.report(name, 'not served: wake = "ours" needs our wake word, '
                                'not installed here')
            continue
        if settings.wake and wake is None:
            log.warning("satellite %s: no wake word here; every speech is a question", name)
        link = SatelliteLink(
            name, settings, bridge,
            Ear(config.vad, load_scorer(config.vad.engine), wake, config.listen.timeout,
                turn_model),
            Volume(config.audio.volume, VolumeStore(volume_file(folder, name))),
            Voices(config), config.audio.default_lang, states.report,
            follow_up=config.listen.follow_up,
        )
        bridge.tasks.spawn(link.run())
    give_back_freed_memory()  # every model is loaded: what their loaders freed
    try:
        await bridge.serve()
    finally:
        await bridge.tasks.close(timeout=2)


def our_wake_word(config: WakeConfig) -> Callable[[], WakeDetector] | None:
    """A new detector per satellite stream, or None when the mic's wake word is not
    installed here (the model must load)."""
    return wake_factory(config)


def volume_file(folder: Path, name: str) -> Path:
    return folder / f"{name}.volume.json"


class Voices:
    """The ``[voice.*]`` key that speaks a language, else the default language's."""

    def __init__(self, config: Config) -> None:
        self.languages = voice_languages(config)
        self.default = config.audio.default_lang

    def __call__(self, lang: str) -> str:
        wanted = lang.lower()
        for key, langs in self.languages.items():
            if wanted in langs or wanted.split("-")[0] in langs:
                return key
        return self.default


class SiteStates:
    """Each satellite's state in the heartbeat: ``ready`` when all are connected."""

    def __init__(self, bus: Bus, names: list[str]) -> None:
        self.bus = bus
        self.states = dict.fromkeys(names, "connecting")
        self._show()

    def report(self, name: str, state: str) -> None:
        self.states[name] = state
        self._show()

    def _show(self) -> None:
        detail = "; ".join(f"{name} {state}" for name, state in self.states.items())
        ok = all(state in ("listening", "answering") for state in self.states.values())
        self.bus.set_state("ready" if ok else "degraded", detail)


start = nothing_to_check(serve)
"""Nothing to check before the bus: every check is in :func:`serve`."""
