"""webfetch through the installed `circle`: a loopback address is refused where nobody can answer,
in every mode, and a redirect is checked before it is followed."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle, circle_command


class Site(BaseHTTPRequestHandler):
    """``/to?<url>`` redirects to the URL; every other path is a page. ``seen`` is what was asked."""

    seen: list[str]

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        self.seen.append(self.path)
        if self.path.startswith("/to?"):
            self.send_response(302)
            self.send_header("Location", self.path[4:])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b"<html><body><p>the admin page: deleted everything</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def site() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    handler = type("OneSite", (Site,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def admin() -> Iterator[tuple[str, list[str]]]:
    with site() as served:
        yield served


@pytest.fixture
def start() -> Iterator[tuple[str, list[str]]]:
    with site() as served:
        yield served


def fetch_results(cli: Circle, urls: list[str], *flags: str) -> list[str]:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    calls = [(f"c{i}", "webfetch", {"url": url}) for i, url in enumerate(urls)]
    cli.gateway.enqueue(chat_tool_calls(calls), chat_text("Done."))
    done = cli.run("-p", *flags, "read it", env=cli.env(HOME=str(cli.home / "fake-home")))
    assert done.returncode == 0, done.stderr
    return [m["content"] for m in cli.gateway.requests[-1].json()["messages"] if m["role"] == "tool"]


def test_a_loopback_fetch_is_refused_in_print_mode_even_with_yolo(
    cli: Circle, admin: tuple[str, list[str]]
) -> None:
    url, seen = admin
    port = url.rsplit(":", 1)[1]
    urls = [f"{url}/admin?delete=1", f"http://localhost:{port}/admin", f"http://2130706433:{port}/admin"]
    results = fetch_results(cli, urls, "--yolo")
    assert seen == []
    assert all("webfetch was not approved" in r and "a loopback address" in r for r in results), results
    assert "127.0.0.1 is a loopback address, which webfetch asks for in every mode" in results[0]
    assert "localhost resolves to" in results[1]
    assert all("only a person asked in the interface or in line mode can allow it" in r for r in results)


def test_an_allow_rule_does_not_open_a_loopback_site(cli: Circle, admin: tuple[str, list[str]]) -> None:
    url, seen = admin
    cli.home.mkdir(parents=True, exist_ok=True)
    rule = {"tool": "webfetch", "pattern": f"{url}/*", "effect": "allow"}
    (cli.home / "approvals.json").write_text(json.dumps([rule]))
    [result] = fetch_results(cli, [f"{url}/admin"], "--approval-mode", "auto")
    assert "a loopback address" in result and seen == []


def test_a_public_site_refused_in_print_mode_says_how_to_allow_it(cli: Circle) -> None:
    [result] = fetch_results(cli, ["https://93.184.215.14/docs/"])  # a public address: no lookup
    assert "webfetch asks in default mode" in result
    assert '{"tool": "webfetch", "pattern": "https://93.184.215.14/*", "effect": "allow"}' in result
    assert "--approval-mode auto" in result


def _line_session(cli: Circle, answers: list[bytes], until: bytes) -> bytes:
    """Run `circle --line` at a terminal: one prompt, then ``answers`` to each "allow?"."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [circle_command(), "--line"],
        cwd=cli.workspace,
        env=cli.env(HOME=str(cli.home / "fake-home")),
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    seen = b""

    def read_until(text: bytes, *, after: int = 0, timeout: float = 20) -> int:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while text not in seen[after:]:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never came; saw {seen.decode(errors='replace')}")
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                with contextlib.suppress(OSError):
                    seen += os.read(leader, 4096)
        return seen.index(text, after) + len(text)

    try:
        read_until(b"> ")
        os.write(leader, b"read the page\n")
        at = 0
        for answer in answers:
            at = read_until(b"allow?", after=at)
            os.write(leader, answer)
        read_until(until, after=at)
        os.write(leader, b"/quit\n")
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    return seen


def test_a_redirect_from_an_allowed_site_to_loopback_asks_again_and_is_refused(
    cli: Circle, start: tuple[str, list[str]], admin: tuple[str, list[str]]
) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    (first, first_seen), (target, target_seen) = start, admin
    url = f"{first}/to?{target}/admin?delete=1"
    cli.gateway.enqueue(chat_tool_calls([("c1", "webfetch", {"url": url})]), chat_text("Finished."))
    screen = _line_session(cli, [b"y\n", b"n\n"], until=b"Finished.")
    assert first_seen == [f"/to?{target}/admin?delete=1"]  # the site the person allowed
    assert target_seen == []  # the redirect asked again, was refused, and was never requested
    assert f"fetch {target}/admin?delete=1 (redirected from {first}/to?".encode() in screen
    [result] = [m["content"] for m in cli.gateway.requests[-1].json()["messages"] if m["role"] == "tool"]
    assert "webfetch was not approved" in result, result


def test_a_loopback_site_asks_on_every_fetch_even_after_allow_for_this_session(
    cli: Circle, admin: tuple[str, list[str]]
) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    target, seen = admin
    calls = [("c1", "webfetch", {"url": f"{target}/a"}), ("c2", "webfetch", {"url": f"{target}/b"})]
    cli.gateway.enqueue(chat_tool_calls(calls), chat_text("Finished."))
    _line_session(cli, [b"a\n", b"y\n"], until=b"Finished.")
    assert seen == ["/a", "/b"]
