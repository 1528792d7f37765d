"""``desktop-assistant models list|pull NAME``: better models, from their official sources."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from desktop_assistant.download import DownloadError, Progress, Unreachable, fetch
from desktop_assistant.exit_codes import ExitCode
from settings.models_catalog import CATALOG, SOURCE_ENV, Model, installed, models_dir


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "models",
        help="list or pull better speech models",
        description="list: the models that can be pulled, and which are installed; pull NAME: "
        f"download one into {models_dir()} (resumes a broken download, checks each file). "
        "The config finds a pulled model by name: [whisper] embedded_model = \"small\" for "
        "whisper-small; Kokoro's voices when [kokoro] voices names no file.",
    )
    parser.add_argument("action", choices=["list", "pull"])
    parser.add_argument("name", nargs="?", help="the model to pull")
    parser.add_argument(
        "--source", default=os.environ.get(SOURCE_ENV, ""), metavar="URL",
        help=f"fetch from this scheme://host instead of each model's own (a mirror; "
        f"default ${SOURCE_ENV})",
    )
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    if args.action == "list":
        print_models()
        return ExitCode.OK
    model = CATALOG.get(args.name or "")
    if model is None:
        print(f"models pull: which model? one of: {', '.join(CATALOG)}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        pull(model, args.source, sys.stderr.isatty())
    except Unreachable as exc:
        print(f"models pull: {exc}", file=sys.stderr)
        return ExitCode.UNAVAILABLE
    except DownloadError as exc:
        print(f"models pull: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK


def print_models() -> None:
    for model in CATALOG.values():
        state = "installed" if installed(model) else "not installed"
        print(f"{model.name}  ({state}, about {model.approx_mb} MB)")
        print(f"  {model.what}")
        print(f"  from {model.files[0].url.rpartition('/')[0]}/")
    print(f"pulled into {models_dir()}")


def pull(model: Model, source: str, terminal: bool) -> None:
    folder = models_dir() / model.name
    folder.mkdir(parents=True, exist_ok=True)
    for file in model.files:
        target = folder / file.name
        if target.is_file():
            if sha256_of(target) == file.sha256:
                print(f"{file.name}: already there (pinned sha256 checked)", file=sys.stderr)
                continue
            # an older pull (before the pins) or a file changed on disk: fetched again
            print(f"{file.name}: not the pinned file, fetching it again", file=sys.stderr)
            target.unlink()
        url = mirrored(file.url, source)
        print(f"{file.name}: {url}", file=sys.stderr)
        fetch(url, target, file.sha256, progress_printer(terminal))
        print(f"{file.name}: ok (pinned sha256 checked)", file=sys.stderr)
    # every file was checked against its pin: ``sha256sum -c SHA256SUMS`` checks them again
    (folder / "SHA256SUMS").write_text("".join(f"{f.sha256}  {f.name}\n" for f in model.files))
    print(f"{model.name} is installed in {folder}")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def mirrored(url: str, source: str) -> str:
    """``url`` with its ``scheme://host`` replaced by ``source``'s, when one is given."""
    if not source:
        return url
    base, original = urlsplit(source.rstrip("/")), urlsplit(url)
    return urlunsplit((base.scheme, base.netloc, base.path + original.path, original.query, ""))


def progress_printer(terminal: bool) -> Progress:
    """A bar redrawn in place on a terminal; a line per 10% elsewhere (a log, a pipe)."""
    last = [-1]

    def show(have: int, total: int | None) -> None:
        if not total:  # no length announced: only the count, and only on a terminal
            if terminal:
                print(f"\r  {have / 1e6:8.1f} MB", end="", file=sys.stderr)
            return
        percent = 100 * have // total
        if terminal:
            end = "\n" if have >= total else ""
            bar = "#" * (percent // 4)
            print(f"\r  [{bar:<25}] {percent:3d}% {have / 1e6:8.1f} MB", end=end, file=sys.stderr)
        elif percent // 10 > last[0]:
            last[0] = percent // 10
            print(f"  {percent}% of {total / 1e6:.1f} MB", file=sys.stderr)

    return show
