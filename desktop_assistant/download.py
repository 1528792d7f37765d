"""One file over HTTP: redirects followed, resumed from its ``.part``, checked, then renamed.

A broken download keeps ``NAME.part`` and the validator it was fetched with
(``NAME.part.etag``); the next try asks for the rest (``Range``) only if the
file is still the same (``If-Range``), and starts again from zero when the
server sends the whole file instead. The finished file is checked against a
pinned sha256, else the sha256 the server names (Hugging Face's
``X-Linked-Etag``), else its length, before it takes its real name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

TIMEOUT = httpx.Timeout(30.0, connect=10.0)
"""Per request: connect, and each read of the body (a stalled server stops the pull)."""
CHUNK = 1 << 16
"""64 KiB: the progress moves often enough on a slow line, the loop costs nothing."""
SHA256 = re.compile(r'^(?:W/)?"?([0-9a-f]{64})"?$')

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
    checked_against: str
    """What the hash or size was compared with: "pinned sha256", "server's sha256", "size"."""


def fetch(url: str, target: Path, pinned: str | None, progress: Progress) -> Fetched:
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
            expected = pinned or _server_sha256(response)
    except httpx.ConnectError as exc:
        raise Unreachable(f"cannot reach {host}: {exc}, are you offline?") from exc
    except httpx.TimeoutException as exc:
        raise Interrupted(f"{host} stopped answering ({type(exc).__name__}): run the same "
                          "command again to resume") from exc
    except httpx.TransportError as exc:
        raise Interrupted(f"the download from {host} broke at {have} bytes ({exc}): run the "
                          "same command again to resume") from exc
    _check(part, validator, target, digest.hexdigest(), expected, have, total)
    part.replace(target)
    validator.unlink(missing_ok=True)
    how = "pinned sha256" if pinned else "server's sha256" if expected else "size"
    return Fetched(target, digest.hexdigest(), how)


def _check(
    part: Path, validator: Path, target: Path, actual: str, expected: str | None,
    have: int, total: int | None,
) -> None:
    """Raise :class:`DownloadError` (and remove the ``.part``) when the file is not right."""
    if expected is not None and actual != expected:
        part.unlink(missing_ok=True)
        validator.unlink(missing_ok=True)
        raise DownloadError(
            f"{target.name}: checksum mismatch (sha256 {actual}, expected {expected}): "
            "the download was removed, pull again"
        )
    if expected is None and total is not None and have != total:
        part.unlink(missing_ok=True)
        validator.unlink(missing_ok=True)
        raise DownloadError(f"{target.name}: {have} bytes, the server announced {total}")


def _total(response: httpx.Response, have: int) -> int | None:
    """The whole file's length: from Content-Range on a 206, else Content-Length."""
    if response.status_code == 206:
        whole = response.headers.get("Content-Range", "").rpartition("/")[2]
        if whole.isdigit():
            return int(whole)
    length = response.headers.get("Content-Length")
    return have + int(length) if length and length.isdigit() else None


def _server_sha256(response: httpx.Response) -> str | None:
    """The sha256 a server names for the file: Hugging Face puts it in ``X-Linked-Etag`` on
    the redirect to its CDN, and the CDN's own ``ETag`` may be it too."""
    for answer in (*response.history, response):
        for header in ("X-Linked-Etag", "ETag"):
            match = SHA256.match(answer.headers.get(header, ""))
            if match:
                return match.group(1)
    return None
