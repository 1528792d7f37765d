"""``desktop-assistant ask "TEXT"``: a text turn over the bus; prints the reply.

Text turns are not spoken: only questions heard by the mic are answered aloud.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bus.client import Bus, RequestTimeout
from bus.liveness import BROKER, AnswererLost, BrokerLost, Liveness, request_watched
from bus.messages import Heartbeat, QuestionRequest, Reply
from bus.process import load_or_exit
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.exit_codes import ExitCode
from services.names import DIALOGUE


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("ask", help="ask the assistant in text and print the reply")
    parser.add_argument("text", nargs="+", help="the question")
    parser.add_argument("--json", action="store_true", help='print {"conversation", "control"}')
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
        bus.subscribe(Reply.TOPIC, Heartbeat.TOPIC)
        await bus.wait_connected()  # the reply's subscription is in place before we ask
        liveness = Liveness()
        feeder = asyncio.ensure_future(_follow_heartbeats(bus, liveness))
        request = QuestionRequest(
            session=args.session, text=text, client_type="text", lang=args.lang
        )
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
                seen = seen or liveness.working_pid(DIALOGUE) is not None
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
    if args.json:
        print(
            json.dumps(
                {"conversation": reply.text, "control": reply.control}, ensure_ascii=False
            )
        )
    else:
        print(reply.text)
    if reply.error:
        print(f"ask: the turn failed: {reply.error}", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK


async def _follow_heartbeats(bus: Bus, liveness: Liveness) -> None:
    while True:
        msg = await bus.recv()
        if isinstance(msg, Heartbeat):
            liveness.saw(msg)
