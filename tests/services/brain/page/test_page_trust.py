"""The page keeps the brain's trust: its own user on loopback, a Host of its own, the token
off loopback; on top, the CSRF token on every /page/ route and a strict CSP."""

from __future__ import annotations

import os
import re

import httpx
import pytest

from tests.helpers.dialogue_stack import Stack
from tests.helpers.other_user import as_other_user
from tests.services.brain.page.conftest import PageStack
from tests.services.brain.test_trust import raw_request

ROUTES = [("GET", "/page/status"), ("GET", "/page/settings"), ("GET", "/page/events"),
          ("GET", "/page/turns/x"), ("POST", "/page/volume"), ("POST", "/page/ask"),
          ("POST", "/page/listen"), ("POST", "/page/doctor"), ("GET", "/page/listen-mode"),
          ("POST", "/page/listen-mode"), ("POST", "/page/confirm")]


def request(stack: Stack, method: str, path: str, **kwargs: object) -> httpx.Response:
    return httpx.request(method, stack.url + path, timeout=30, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_every_page_route_wants_the_csrf_token(stack: PageStack, method: str, path: str) -> None:
    body = {"json": {"action": "get"}} if method == "POST" else {}
    for headers in ({}, {"X-CSRF-Token": "forged"}):
        refused = request(stack, method, path, headers=headers, **body)
        assert refused.status_code == 403, refused.text
        assert "CSRF token" in refused.json()["error"]


def test_a_request_from_another_site_is_refused_even_with_the_token(stack: PageStack) -> None:
    headers = {"X-CSRF-Token": stack.csrf(), "Sec-Fetch-Site": "cross-site"}
    refused = request(stack, "POST", "/page/volume", json={"action": "up"}, headers=headers)
    assert refused.status_code == 403
    assert refused.json() == {"error": "a request from another site"}


def test_a_foreign_host_gets_nothing(stack: PageStack) -> None:
    for path in ("/", "/page/static/page.js", "/page/status"):
        status, data = raw_request(
            stack.port, f"GET {path} HTTP/1.1\r\nHost: evil.example:{stack.port}\r\n"
                        "Connection: close\r\n")
        assert status == 421, (path, data)


def test_the_page_forbids_inline_script_and_framing(stack: PageStack) -> None:
    page = request(stack, "GET", "/")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert re.findall(r"<script(?![^>]*\bsrc=)", page.text) == []  # scripts are files
    assert " style=" not in page.text and " onclick=" not in page.text
    assert request(stack, "GET", "/page/static/other.txt").status_code == 404
    assert request(stack, "GET", "/page/static/page.js").headers["content-type"].startswith(
        "text/javascript")


def test_bad_input_is_a_clear_error_and_the_brain_goes_on(stack: PageStack) -> None:
    headers = {"X-CSRF-Token": stack.csrf()}
    for path, body, field in (
        ("/page/ask", {"text": "   "}, "text"),
        ("/page/ask", {"text": 5}, "text"),
        ("/page/volume", {"action": "loud"}, "action"),
        ("/page/volume", {"action": "set", "value": 9}, "value"),
        ("/page/listen-mode", {"mode": "loud"}, "mode"),
        ("/page/confirm", {"answer": "maybe", "turn": "t"}, "answer"),
        ("/page/confirm", {"answer": "yes", "turn": ""}, "turn"),
    ):
        refused = request(stack, "POST", path, json=body, headers=headers)
        assert refused.status_code == 422, refused.text
        assert refused.json()["fields"][0]["field"] == field
    loud = request(stack, "POST", "/page/listen-mode", json={"mode": "loud"}, headers=headers)
    assert "'wake', 'always' or 'push'" in loud.json()["error"]  # the modes there are
    unset = request(stack, "POST", "/page/volume", json={"action": "set"}, headers=headers)
    assert unset.status_code == 422 and "needs a value" in unset.json()["error"]
    broken = request(stack, "POST", "/page/ask", content=b"{", headers={
        **headers, "Content-Type": "application/json"})
    assert broken.status_code == 400 and "malformed JSON" in broken.json()["error"]
    assert request(stack, "GET", "/page/status", headers=headers).status_code == 200


@pytest.mark.skipif(os.getuid() != 0, reason="becoming another user needs root")
def test_another_user_gets_not_even_the_page(stack: PageStack) -> None:
    csrf = stack.csrf()  # as if it had leaked: the user is refused before it counts
    for head in (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n",
                 f"GET /page/status HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n"
                 f"X-CSRF-Token: {csrf}\r\n"):
        sent = head + "Connection: close\r\n"
        status, data = as_other_user("nobody", lambda sent=sent: raw_request(stack.port, sent))
        assert status == 403
        assert "another user (uid" in str(data["error"])


def test_off_loopback_the_page_wants_the_token_once() -> None:
    stack = Stack([], brain='host = "0.0.0.0"\ntoken = "s3cret"')
    stack.headers = {"Authorization": "Bearer s3cret"}
    stack.start()
    try:
        assert httpx.get(stack.url + "/", timeout=10).status_code == 401
        assert httpx.get(stack.url + "/?token=wrong", timeout=10).status_code == 401
        with httpx.Client(base_url=stack.url, timeout=10, follow_redirects=True) as browser:
            signed = browser.get("/?token=s3cret")  # follows the redirect to a clean URL
            assert signed.status_code == 200 and str(signed.url).endswith(f":{stack.port}/")
            cookie = signed.history[0].headers["set-cookie"].lower()
            assert "httponly" in cookie and "samesite=strict" in cookie
            assert "s3cret" not in cookie  # a secret of this run, never the token itself
            csrf = re.search(r'name="csrf-token" content="([^"]+)"', signed.text)
            assert csrf is not None
            status = browser.get("/page/status", headers={"X-CSRF-Token": csrf.group(1)})
            assert status.status_code == 200
        refused = httpx.get(stack.url + "/page/status", headers={"X-CSRF-Token": csrf.group(1)},
                            timeout=10)
        assert refused.status_code == 401  # the CSRF token alone is not the brain's token
    finally:
        stack.stop()


def test_without_a_mic_or_a_question_the_controls_say_so(stack: PageStack) -> None:
    headers = {"X-CSRF-Token": stack.csrf()}
    for path, body in (("/page/listen-mode", {"mode": "push"}), ("/page/listen", {})):
        refused = request(stack, "POST", path, json=body, headers=headers)
        assert refused.status_code == 503
        assert refused.json() == {"error": "no mic service is running"}
    shown = request(stack, "GET", "/page/listen-mode", headers=headers).json()
    assert shown == {"mode": "always", "error": "", "mic": False}  # the config's, for now
    late = request(stack, "POST", "/page/confirm", json={"answer": "yes", "turn": "t1"},
                   headers=headers)
    assert late.status_code == 409  # nothing waits: no "yes" goes out as a new question
    assert "no question of the voice session waits" in late.json()["error"]
