"""``desktop-assistant ask "TEXT"``: a text turn over the bus; prints the reply.

Text turns are not spoken: only questions heard by the mic are answered aloud.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bus.client import Bus, RequestTimeout
from bus.errors import ErrorCode
from bus.liveness import BROKER, AnswererLost, BrokerLost, Liveness, request_watched
from bus.message import Message
from bus.messages import Heartbeat, QuestionRequest, Reply, TextPiece
from bus.process import load_or_exit
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.commands.streamed import StreamedText
from desktop_assistant.exit_codes import ExitCode
from services.base.names import DIALOGUE


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("ask", help="ask the assistant in text and print the reply")
    parser.add_argument("text", nargs="+", help="the question")
    parser.add_argument("--json", action="store_true", help='print {"conversation", "control"}')
    parser.add_argument(
        "--no-stream",
        action="store_true",
        help="print the reply once it is whole (default: as it is written; --json implies it)",
    )
    parser.add_argument("--session", default="cli", help="conversation to continue (default cli)")
    parser.add_argument("--lang", help="language of the question (default: [dialogue] lang)")
    parser.add_argument("--timeout", type=float, help="seconds to wait (default: [brain] timeout)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    text = " ".join(args.text).strip()
    if not text:
        print("ask: the question is empty", file=sys.stderr)
        return ExitCode.USAGE
    return asyncio.run(_ask(args, text))


async def _ask(args: argparse.Namespace, text: str) -> int:
    config = load_or_exit(args.config)
    timeout = args.timeout or config.brain.timeout
    async with cli_bus(args.config) as bus:
        stream = None if args.no_stream or args.json else StreamedText(sys.stdout)
        bus.subscribe(Reply.TOPIC, Heartbeat.TOPIC, *([TextPiece.TOPIC] if stream else []))
        await bus.wait_connected()  # the reply's subscription is in place before we ask
        liveness = Liveness()
        request = QuestionRequest(
            session=args.session, text=text, client_type="text", lang=args.lang
        )
        follow = Follower(liveness, stream, request.id)
        feeder = asyncio.ensure_future(follow.run(bus))
        answer = asyncio.ensure_future(
            request_watched(
                bus, liveness, DIALOGUE, request, Reply, timeout,
            )
        )
        # Asked at once (a fast answer needs no heartbeat); nobody beating in time is an error.
        loop = asyncio.get_running_loop()
        absent_after = loop.time() + 3 * config.bus.heartbeat + 0.5
        seen = False  # once it was seen, its loss is request_watched's to report
        try:
            while not answer.done():
                await asyncio.wait({answer}, timeout=0.1)
                seen = seen or liveness.last(DIALOGUE) is not None  # its heartbeat came
                # A silent broker silences the dialogue too: request_watched names it.
                broker_quiet = liveness.last(BROKER) is not None and not liveness.alive(
                    BROKER, periods=1.5
                )
                late = loop.time() > absent_after
                if not answer.done() and not seen and late and not broker_quiet:
                    print(
                        "ask: no dialogue service on the bus: start it (`honcho start`, or "
                        "`python -m services.dialogue`)",
                        file=sys.stderr,
                    )
                    return ExitCode.UNAVAILABLE
            reply = await answer
            feeder.cancel()
            while (msg := await bus.recv(timeout=0)) is not None:  # pieces before the reply
                follow.saw(msg)
        except BrokerLost as exc:
            print(f"ask: {exc}", file=sys.stderr)
            return ExitCode.UNAVAILABLE
        except AnswererLost as exc:
            print(f"ask: {exc}: ask again", file=sys.stderr)
            return ExitCode.UNAVAILABLE
        except RequestTimeout:
            print(f"ask: the dialogue service did not answer within {timeout:g} s", file=sys.stderr)
            return ExitCode.UNAVAILABLE
        finally:
            for task in (answer, feeder):
                task.cancel()
            await asyncio.gather(answer, feeder, return_exceptions=True)
    if reply.error == ErrorCode.QUESTION_TOO_LONG:  # the dialogue's cap: asked wrongly
        print(f"ask: {reply.text}", file=sys.stderr)
        return ExitCode.USAGE
    if stream is not None:
        stream.end(reply.text)
    elif args.json:
        print(
            json.dumps(
                {"conversation": reply.text, "control": reply.control,
                 "confirmation": reply.confirmation}, ensure_ascii=False
            )
        )
    else:
        print(reply.text)
    if reply.error:
        print(f"ask: the turn failed: {reply.error}", file=sys.stderr)
        return ExitCode.FAILED
    if reply.confirmation:
        session = "" if args.session == "cli" else f" --session {args.session}"
        print(f"ask: this waits for your yes: desktop-assistant ask{session} yes (or no)",
              file=sys.stderr)
    return ExitCode.OK


class Follower:
    """What comes besides the reply: heartbeats for ``liveness``, and the answer's pieces
    (the dialogue's turn id of a text turn is the request's id) for ``stream``."""

    def __init__(self, liveness: Liveness, stream: StreamedText | None, turn: str) -> None:
        self.liveness = liveness
        self.stream = stream
        self.turn = turn

    async def run(self, bus: Bus) -> None:
        while True:
            msg = await bus.recv()
            if msg is not None:
                self.saw(msg)

    def saw(self, msg: Message) -> None:
        if isinstance(msg, Heartbeat):
            self.liveness.saw(msg)
        elif isinstance(msg, TextPiece) and self.stream is not None and msg.turn == self.turn:
            self.stream.piece(msg)
