"""One file over HTTP: redirects followed, resumed from its ``.part``, checked, then renamed.

A broken download keeps ``NAME.part`` and the validator it was fetched with
(``NAME.part.etag``); the next try asks for the rest (``Range``) only if the
file is still the same (``If-Range``), and starts again from zero when the
server sends the whole file instead. The finished file is checked against its
pinned sha256 before it takes its real name: what a server says of its own file
(Hugging Face's ``X-Linked-Etag``, a length) proves nothing against a junk
mirror, so it decides nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

TIMEOUT = httpx.Timeout(30.0, connect=10.0)
"""Per request: connect, and each read of the body (a stalled server stops the pull)."""
CHUNK = 1 << 16
"""64 KiB: the progress moves often enough on a slow line, the loop costs nothing."""

Progress = Callable[[int, int | None], None]
"""Called with (bytes so far, total bytes or None) as the file arrives."""


class DownloadError(Exception):
    """The file could not be fetched or is not what was expected; nothing wrong is kept."""


class Unreachable(DownloadError):
    """No connection to the host at all (offline, DNS, refused)."""


class Interrupted(DownloadError):
    """The connection broke halfway: the ``.part`` stays for the next try to resume."""


@dataclass(frozen=True)
class Fetched:
    path: Path
    sha256: str


def fetch(url: str, target: Path, pinned: str, progress: Progress) -> Fetched:
    part = target.with_name(target.name + ".part")
    validator = part.with_name(part.name + ".etag")
    have = part.stat().st_size if part.is_file() else 0
    headers = {}
    if have:
        headers["Range"] = f"bytes={have}-"
        if validator.is_file():
            headers["If-Range"] = validator.read_text()
    host = httpx.URL(url).host
    try:
        with httpx.Client(follow_redirects=True, timeout=TIMEOUT) as client, client.stream(
            "GET", url, headers=headers
        ) as response:
            if response.status_code not in (200, 206):
                raise DownloadError(f"{url}: HTTP {response.status_code} {response.reason_phrase}")
            resumed = response.status_code == 206
            digest = hashlib.sha256()
            if resumed:
                digest.update(part.read_bytes())
            else:  # the server sent the whole file: what was there is stale
                have = 0
            etag = response.headers.get("ETag")
            if etag:
                validator.write_text(etag)
            total = _total(response, have)
            with part.open("ab" if resumed else "wb") as out:
                for chunk in response.iter_bytes(CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    have += len(chunk)
                    progress(have, total)
    except httpx.ConnectError as exc:
        raise Unreachable(f"cannot reach {host}: {exc}, are you offline?") from exc
    except httpx.TimeoutException as exc:
        raise Interrupted(f"{host} stopped answering ({type(exc).__name__}): run the same "
                          "command again to resume") from exc
    except httpx.TransportError as exc:
        raise Interrupted(f"the download from {host} broke at {have} bytes ({exc}): run the "
                          "same command again to resume") from exc
    _check(part, validator, target, digest.hexdigest(), pinned)
    part.replace(target)
    validator.unlink(missing_ok=True)
    return Fetched(target, digest.hexdigest())


def _check(part: Path, validator: Path, target: Path, actual: str, pinned: str) -> None:
    """Raise :class:`DownloadError` (and remove the ``.part``) when the file is not right."""
    if actual != pinned:
        part.unlink(missing_ok=True)
        validator.unlink(missing_ok=True)
        raise DownloadError(
            f"{target.name}: checksum mismatch (sha256 {actual}, pinned {pinned}): the "
            "download was removed; if a mirror served it, it is not the official file"
        )


def _total(response: httpx.Response, have: int) -> int | None:
    """The whole file's length: from Content-Range on a 206, else Content-Length."""
    if response.status_code == 206:
        whole = response.headers.get("Content-Range", "").rpartition("/")[2]
        if whole.isdigit():
            return int(whole)
    length = response.headers.get("Content-Length")
    return have + int(length) if length and length.isdigit() else None
