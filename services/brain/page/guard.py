"""The page's defences on top of the brain's :class:`~services.brain.gate.Gate`.

The Gate already refuses other users of the machine, foreign ``Host`` names
(DNS rebinding) and, with ``[brain] token``, anyone without the token. A
browser adds two dangers the Gate cannot see: a web page elsewhere may make
the user's browser send requests (cross-site request forgery), and the
page's own HTML could run injected script. So every ``/page/`` route wants a
secret the page's HTML carries (the CSRF token: another site cannot read it,
the same-origin policy forbids), and every response forbids inline script,
framing and loads from anywhere else (the Content-Security-Policy).
"""

from __future__ import annotations

import secrets

from fastapi import Request
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSRF_HEADER = "x-csrf-token"
CSRF_QUERY = "csrf"
"""EventSource cannot send headers: the event stream takes the token in its URL."""
SIGN_IN_COOKIE = "desktop_assistant_page"
"""What a browser that gave ``[brain] token`` keeps (it cannot send a bearer header): a
secret of this run of the brain, never the token itself, which cookies would carry to
every port of the host."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def same(offered: str, secret: str) -> bool:
    # as bytes: a header may hold any byte, and compare_digest refuses non-ASCII text
    return secrets.compare_digest(offered.encode("latin-1", errors="replace"), secret.encode())


class PageGuard:
    """The CSRF token of this run of the brain, and who may see the page."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.csrf = secrets.token_urlsafe(32)
        self.signed = secrets.token_urlsafe(32)
        """The sign-in cookie's value: a restart of the brain asks for the token again."""

    def signed_in(self, request: Request) -> bool:
        """Without ``[brain] token`` the Gate decided already; with one, the bearer header
        must carry it, or the cookie the page's sign-in set."""
        if not self.token:
            return True
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and same(value.strip(), self.token):
            return True
        return same(request.cookies.get(SIGN_IN_COOKIE, ""), self.signed)

    def check(self, request: Request) -> None:
        """What every ``/page/`` route depends on: signed in, and the page's own request."""
        if not self.signed_in(request):
            raise HTTPException(401, "missing or wrong token: open /?token=YOUR_TOKEN once")
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise HTTPException(403, "a request from another site")
        offered = request.headers.get(CSRF_HEADER) or request.query_params.get(CSRF_QUERY, "")
        if not same(offered, self.csrf):
            raise HTTPException(403, f"missing or wrong CSRF token (the {CSRF_HEADER} header)")


class SecurityHeaders:
    """Add :data:`HEADERS` to every response of the brain (the API's JSON too: harmless)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)
