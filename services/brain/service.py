"""The brain: its start (the port bound before the bus, then the bridge onto the bus and the
HTTP API on that socket) and its Service, :class:`BrainBridge`: asks and history clears as
bus requests, de-duplicated; readiness; the turns the page follows."""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bus.client import Bus, RequestTimeout
from bus.errors import ErrorCode
from bus.liveness import AnswererLost, Liveness, request_watched
from bus.message import Message
from bus.messages import (
    ClearHistoryRequest,
    Heartbeat,
    HistoryCleared,
    QuestionRequest,
    Reply,
    TextPiece,
)
from bus.turns import TURN_MESSAGES
from network.sockets import listen
from services.base.names import DIALOGUE
from services.base.runner import ServiceMain, StartupError
from services.base.service import Service
from services.brain.answers import (
    CLEAR_TIMEOUT,
    LIVE_STATES,
    REMEMBERED,
    REQUIRED,
    SESSION_PREFIX,
    Answer,
    Busy,
    Conflict,
    NoAnswer,
    TooLong,
    Unavailable,
)
from services.brain.api import create_app
from services.brain.page.facts import page_address, page_facts
from services.brain.page.live import PAGE_FOLLOWS
from services.brain.pieces import Pieces
from services.brain.server import serve
from settings import Config
from settings.loader import config_dir
from settings.startup import brain_problems

log = logging.getLogger("services.brain")


def start(config: Config, _: argparse.Namespace) -> ServiceMain:
    """Refuse what ``config check`` refuses, and bind the port, before the bus is reached:
    a port in use then fails at once instead of after the bus connection."""
    problems = brain_problems(config.brain)
    if problems:
        raise StartupError(f"brain: refusing to start: {problems[0]}")
    try:
        sock = listen(config.brain.host, config.brain.port)
    except OSError as exc:
        raise StartupError(f"brain: {exc}") from None
    return serve_on(sock)


def serve_on(sock: socket.socket) -> ServiceMain:
    """The brain on ``sock``, bound already."""

    async def brain(bus: Bus, config: Config, args: argparse.Namespace) -> None:
        with sock:
            bridge = BrainBridge(bus, config.brain.timeout, config.brain.max_pending)
            await bridge.start()
            watcher = asyncio.ensure_future(bridge.serve())
            bus.set_state("ready")
            host, port = sock.getsockname()[:2]
            log.info("brain: listening on http://%s:%s (OpenAPI at /openapi.json)", host, port)
            log.info("brain: the page at %s", page_address(config.brain))
            page = page_facts(config, config_dir(args.config))
            try:
                await serve(create_app(bridge, config.brain, page), sock, config.brain)
            finally:
                watcher.cancel()

    return brain


@dataclass(frozen=True)
class _Key:
    session_id: str
    text: str
    client_type: str


def _reused(request_id: str) -> str:
    return f"request_id {request_id!r} was already used for another question"


class BrainBridge(Service):
    """One per process; :meth:`serve` must run to follow the heartbeats."""

    def __init__(self, bus: Bus, timeout: float, max_pending: int = 32) -> None:
        super().__init__(bus)
        self.timeout = timeout
        self.max_pending = max_pending
        self.liveness = Liveness()
        self.pieces = Pieces()
        """The text of the answers streamed to clients (``dialogue.text``), by turn."""
        # Keyed by (session, request id): another session's request id is its own.
        self._answers: OrderedDict[tuple[str, str], tuple[_Key, Answer]] = OrderedDict()
        self._pending: dict[tuple[str, str], tuple[_Key, asyncio.Task[Answer]]] = {}
        self.observers: list[Callable[[Message], None]] = []
        """Who follows the turns and the volume on the bus (the page)."""

    async def start(self) -> None:
        self.subscribe(self.bus)
        await self.bus.wait_connected()

    def _heartbeat(self, msg: Heartbeat) -> None:
        self.liveness.saw(msg)

    def _piece(self, msg: TextPiece) -> None:
        self.pieces.route(msg)

    def _observed(self, msg: Message) -> None:
        """A message of a turn (every stage ``tap --turns`` shows), or another the page
        follows (``PAGE_FOLLOWS``: the volume, the listen mode...)."""
        for observer in self.observers:
            try:
                observer(msg)
            except Exception:  # a bug of the page's must not stop the brain's bus side
                log.exception("an observer failed on %s", msg.TOPIC)

    def _not_ours(self, msg: Reply | HistoryCleared) -> None:
        """An answer to another process's request: ours are taken by their waiters
        (:meth:`Bus.request`) before they reach the inbox, and shown to the observers
        by whoever asked. Subscribed from the start, so that no request has to wait for
        its reply's subscription to reach the broker."""
        self._observed(msg)

    def readiness(self) -> tuple[bool, dict[str, Any]]:
        """Ready while the dialogue service and the tool executor are alive; ``services``
        shows the state of every service seen on the bus (``down`` once its heartbeats stop)."""
        services: dict[str, str] = {}
        missing = []
        for name in dict.fromkeys([*REQUIRED, *self.liveness.services()]):
            seen = self.liveness.last(name)
            alive = self.liveness.alive(name) and seen is not None and seen.state in LIVE_STATES
            if alive and seen is not None:
                services[name] = seen.state + (f" ({seen.detail})" if seen.detail else "")
            else:
                services[name] = "absent" if seen is None else "down"
            if not alive and name in REQUIRED:
                missing.append(name)
        body: dict[str, Any] = {"status": "ready" if not missing else "unavailable"}
        if missing:
            body["error"] = f"no recent heartbeat from: {', '.join(missing)}"
        body["services"] = services
        return not missing, body

    def _require_dialogue(self) -> None:
        seen = self.liveness.last(DIALOGUE)
        if not self.liveness.alive(DIALOGUE) or seen is None or seen.state not in LIVE_STATES:
            raise Unavailable(
                "the dialogue service is not running (no recent heartbeat on the bus)"
            )

    async def ask(
        self,
        session_id: str,
        request_id: str,
        text: str,
        client_type: str,
        lang: str | None,
        turn: str | None = None,
    ) -> Answer:
        """The answer to a question; a repeated ``request_id`` of the session gets the same
        one, run once. The dialogue keeps the same rule, which outlives a restart of ours.
        ``turn``: the turn id the dialogue's ``TextPiece``s will carry (for :attr:`pieces`)."""
        key = _Key(session_id, text, client_type)
        asked = (session_id, request_id)
        for entry in (self._answers.get(asked), self._pending.get(asked)):
            if entry is not None and entry[0] != key:
                raise Conflict(_reused(request_id))
        if asked in self._answers:
            log.info("request %s: answered already, same answer again", request_id)
            return self._answers[asked][1]
        pending = self._pending.get(asked)
        if pending is None:
            if len(self._pending) >= self.max_pending:
                raise Busy(
                    f"{len(self._pending)} questions are being answered already; "
                    "ask again in a moment"
                )
            self._require_dialogue()
            ask = QuestionRequest(
                request_id=request_id,  # a repeat is the same request: answered once
                session=SESSION_PREFIX + session_id,
                text=text,
                client_type=client_type,
                lang=lang,
                turn=turn,
            )
            task = asyncio.ensure_future(self._run(key, asked, ask))
            task.add_done_callback(lambda t: self._finished(asked, t))
            pending = self._pending[asked] = (key, task)
        return await asyncio.shield(pending[1])

    async def _run(self, key: _Key, asked: tuple[str, str], ask: QuestionRequest) -> Answer:
        try:
            reply = await request_watched(
                self.bus,
                self.liveness,
                DIALOGUE,
                ask,
                Reply,
                self.timeout,
            )
        except AnswererLost as exc:
            raise Unavailable(f"{exc}; ask again") from None
        except RequestTimeout:
            raise NoAnswer(
                f"the dialogue service did not answer within {self.timeout:g} s"
            ) from None
        self._observed(reply)  # taken by our waiter: the inbox never sees it
        if reply.error == ErrorCode.REQUEST_REUSED:  # the dialogue remembers what we forgot
            raise Conflict(_reused(asked[1]))
        if reply.error == ErrorCode.QUESTION_TOO_LONG:
            raise TooLong(reply.text)
        answer = Answer(reply.text, reply.control, reply.error, reply.confirmation)
        if reply.error is None:  # a failed turn may be retried with the same id
            self._answers[asked] = (key, answer)
            while len(self._answers) > REMEMBERED:
                self._answers.popitem(last=False)
        return answer

    def _finished(self, asked: tuple[str, str], task: asyncio.Task[Answer]) -> None:
        self._pending.pop(asked, None)
        if not task.cancelled():
            task.exception()  # retrieved: every caller already got it through the shield

    async def clear(self, session_id: str) -> None:
        self._require_dialogue()
        request = ClearHistoryRequest(session=SESSION_PREFIX + session_id)
        try:
            await self.bus.request(request, HistoryCleared, CLEAR_TIMEOUT)
        except RequestTimeout:
            raise NoAnswer(
                f"the dialogue service did not confirm within {CLEAR_TIMEOUT:g} s"
            ) from None

    HANDLERS = {
        **dict.fromkeys((*TURN_MESSAGES, *PAGE_FOLLOWS), _observed),
        Heartbeat: _heartbeat,
        TextPiece: _piece,
        Reply: _not_ours,
        HistoryCleared: _not_ours,
    }
