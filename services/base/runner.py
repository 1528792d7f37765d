"""How a service process runs: config, signals, bus, heartbeat, clean shutdown."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bus import eventloop
from bus.client import Bus
from bus.endpoints import EndpointError, Endpoints
from bus.logs import setup_logging
from bus.process import add_common_arguments, connect, endpoints_of, load_or_exit
from services.base import one_copy
from services.base.heap import give_back_freed_memory
from settings import Config, config_dir
from settings.state import state_dir

log = logging.getLogger(__name__)

ServiceMain = Callable[[Bus, Config, argparse.Namespace], Awaitable[None]]
Start = Callable[[Config, argparse.Namespace], ServiceMain]
"""Every service's one start form (``start`` in its ``service.py``): the checks that must
pass before the bus is reached, returning the main they prepared (with
what they loaded or bound), or raises :class:`StartupError`."""
T = TypeVar("T")


def nothing_to_check(main: ServiceMain) -> Start:
    """The start of a service whose checks are all in its main (after the bus is reached)."""

    def start(config: Config, args: argparse.Namespace) -> ServiceMain:
        return main

    return start


class StartupError(Exception):
    """A check before the bus refused the start: ``message`` goes to stderr, the process
    exits with ``code`` (2, as for a bad config: a supervisor should not restart it)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def service_parser(name: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"python -m services.{name}", description=description)
    add_common_arguments(parser)
    return parser


async def load_in_thread(load: Callable[..., T], *args: Any) -> T:
    """``load(*args)`` (a model loading at start-up) in a daemon thread.

    Unlike ``asyncio.to_thread``, a SIGTERM meanwhile does not wait for it: the
    service stops at once and :func:`run_service` ends the process with
    ``os._exit``, dropping the half-loaded model, instead of waiting seconds for
    the load (a normal interpreter exit would also abort in the model library's
    C++ destructors while the thread is still inside it).
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():  # cancelled meanwhile
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        result, error = None, None
        try:
            result = load(*args)
            give_back_freed_memory()  # what loading the model freed, 40 MB for Whisper base
        except BaseException as exc:  # handed to the awaiting task, whatever it is
            error = exc
        finally:
            _loading.discard(thread)
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    thread = threading.Thread(target=work, name=f"load-{getattr(load, '__name__', 'job')}",
                              daemon=True)
    _loading.add(thread)
    thread.start()
    return await done


_loading: set[threading.Thread] = set()
"""Start-up loads still running (see :func:`load_in_thread`)."""


def run_service(name: str, args: argparse.Namespace, start: Start) -> int:
    """``start(config, args)``, then its main ``(bus, config, args)`` until it returns or
    SIGTERM/SIGINT arrives; a :class:`StartupError` of ``start`` exits before the bus."""
    config = load_or_exit(args.config)
    setup_logging(args.log_level, config)
    try:
        one_copy.hold(name, config_dir(args.config), state_dir())
    except one_copy.AlreadyRunning as exc:
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only state folder: run, but say what is not guarded
        log.warning(
            "%s: cannot take the one-copy lock (%s): a second copy would not be refused", name, exc
        )
    try:
        return _run_held(name, args, config, start)
    finally:
        one_copy.release_all()


def _run_held(name: str, args: argparse.Namespace, config: Config, start: Start) -> int:
    try:
        serve = start(config, args)
    except StartupError as exc:
        print(exc.message, file=sys.stderr)
        return exc.code
    try:
        endpoints = endpoints_of(config)
    except EndpointError as exc:
        log.error("%s: %s", name, exc)
        return 2
    code = eventloop.run(_run(name, endpoints, config, args, serve))
    if _loading:
        # Stopped while a model was loading: everything of ours is closed; leave without
        # waiting for the load or running the interpreter's exit over the library's thread.
        log.info("%s: exiting while %s runs", name, ", ".join(t.name for t in _loading))
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code


async def _run(
    name: str, endpoints: Endpoints, config: Config, args: argparse.Namespace, main: ServiceMain
) -> int:
    loop = asyncio.get_running_loop()
    bus = Bus(endpoints, name)
    task = asyncio.current_task()
    stopping = False

    def stop(signum: int) -> None:
        nonlocal stopping
        log.info("%s: %s received, stopping", name, signal.Signals(signum).name)
        stopping = True
        if task is not None:
            task.cancel()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    try:
        await connect(bus, name)
        bus.start_heartbeat(config.bus.heartbeat)
        await main(bus, config, args)
        return 0
    except asyncio.CancelledError:
        if not stopping:
            raise
        return 0
    finally:
        bus.set_state("stopping")
        with contextlib.suppress(Exception):
            bus.beat(config.bus.heartbeat)
        await bus.close()
        log.info("%s: stopped", name)
