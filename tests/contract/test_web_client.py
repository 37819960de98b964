"""The WebClient contract: the httpx adapter against a loopback server (and respx for DuckDuckGo),
and the fake, held to the same basic assertions."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
import respx

from circle._testing.web import FakeWeb
from circle.adapters.web.httpx_web import HttpxWebClient
from circle.application.ports.web import FetchedPage, SearchResult, WebClient
from circle.domain.errors import ToolError

PAGE = """<!doctype html><html><head><title>T</title><script>var x = 1;</script></head>
<body><h1>Welcome</h1><p>Read <a href="/docs">the docs</a> first.</p><ul><li>one</li></ul></body></html>"""
BIG = 1_000_000
STOP = threading.Event()


class Handler(BaseHTTPRequestHandler):
    seen: list[str] = []  # noqa: RUF012 - shared on purpose: what the server was asked

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        Handler.seen.append(self.path)
        path = self.path
        if path.startswith("http://"):  # asked as a proxy
            self._send(200, "text/plain", b"through the proxy " + path.encode())
        elif path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE.encode())
        elif path == "/text":
            self._send(200, "text/plain; charset=utf-8", "h\u00e9llo".encode())
        elif path.startswith("/hop/"):
            left = int(path.rsplit("/", 1)[1])
            self._redirect("/page" if left == 0 else f"/hop/{left - 1}")
        elif path == "/to-file":
            self._redirect("file:///etc/passwd")
        elif path == "/big":
            self._send(200, "text/plain", b"x" * BIG)
        elif path == "/slow":
            STOP.wait(5)
            self._send(200, "text/plain", b"late")
        elif path == "/pdf":
            self._send(200, "application/pdf", b"%PDF-1.4")
        else:
            self._send(404, "text/plain", b"nothing here")

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client stopped reading
            self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    STOP.clear()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    STOP.set()
    httpd.shutdown()
    httpd.server_close()


def _fake(base: str) -> FakeWeb:
    markdown = f"# Welcome\n\nRead [the docs]({base}/docs) first.\n\n- one\n"
    return FakeWeb(
        pages={
            f"{base}/page": FetchedPage(f"{base}/page", f"{base}/page", 200, "text/html", markdown),
            f"{base}/big": "x" * BIG,
        }
    )


@pytest.fixture(params=["httpx", "fake"])
async def web(request: pytest.FixtureRequest, server: str) -> AsyncIterator[WebClient]:
    client: WebClient = HttpxWebClient() if request.param == "httpx" else _fake(server)
    yield client
    await client.aclose()


# -- the contract, for both --------------------------------------------------------------------


async def test_a_page_is_read_as_markdown(web: WebClient, server: str) -> None:
    page = await web.fetch(f"{server}/page", max_bytes=100_000, timeout_s=5)
    assert page.status == 200 and page.final_url == f"{server}/page"
    assert page.content_type == "text/html"
    assert "# Welcome" in page.text
    assert f"[the docs]({server}/docs)" in page.text
    assert "- one" in page.text
    assert "var x" not in page.text and not page.truncated


async def test_a_missing_page_is_a_clear_error(web: WebClient, server: str) -> None:
    with pytest.raises(ToolError, match="HTTP 404"):
        await web.fetch(f"{server}/nope", max_bytes=1000, timeout_s=5)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/x", "data:text/plain,hi", "example.com"]
)
async def test_other_schemes_are_refused_before_any_request(web: WebClient, url: str) -> None:
    before = len(Handler.seen)
    with pytest.raises(ToolError, match=r"http and https|not a URL"):
        await web.fetch(url, max_bytes=1000, timeout_s=5)
    assert len(Handler.seen) == before


async def test_the_body_is_cut_at_max_bytes(web: WebClient, server: str) -> None:
    page = await web.fetch(f"{server}/big", max_bytes=10_000, timeout_s=5)
    assert page.truncated and len(page.text) == 10_000


# -- the httpx adapter -------------------------------------------------------------------------


@pytest.fixture
async def real() -> AsyncIterator[HttpxWebClient]:
    client = HttpxWebClient()
    yield client
    await client.aclose()


async def test_redirects_are_followed_up_to_five(real: HttpxWebClient, server: str) -> None:
    page = await real.fetch(f"{server}/hop/4", max_bytes=100_000, timeout_s=5)
    assert page.url == f"{server}/hop/4" and page.final_url == f"{server}/page"
    assert "# Welcome" in page.text


async def test_more_than_five_redirects_stop(real: HttpxWebClient, server: str) -> None:
    with pytest.raises(ToolError, match="redirected more than 5 times"):
        await real.fetch(f"{server}/hop/5", max_bytes=100_000, timeout_s=5)


async def test_a_redirect_to_another_scheme_is_refused(real: HttpxWebClient, server: str) -> None:
    with pytest.raises(ToolError, match="file"):
        await real.fetch(f"{server}/to-file", max_bytes=1000, timeout_s=5)


async def test_a_slow_page_times_out(real: HttpxWebClient, server: str) -> None:
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"did not answer within 0\.3 s"):
        await real.fetch(f"{server}/slow", max_bytes=1000, timeout_s=0.3)
    assert time.monotonic() - started < 3


async def test_plain_text_is_decoded_by_its_charset(real: HttpxWebClient, server: str) -> None:
    page = await real.fetch(f"{server}/text", max_bytes=1000, timeout_s=5)
    assert page.text == "h\u00e9llo" and page.content_type == "text/plain"


async def test_binary_pages_are_refused(real: HttpxWebClient, server: str) -> None:
    with pytest.raises(ToolError, match="application/pdf"):
        await real.fetch(f"{server}/pdf", max_bytes=1000, timeout_s=5)


async def test_requests_go_through_the_configured_proxy(server: str) -> None:
    client = HttpxWebClient(proxy=server)
    try:
        page = await client.fetch("http://example.invalid/via", max_bytes=1000, timeout_s=5)
    finally:
        await client.aclose()
    assert page.text == "through the proxy http://example.invalid/via"


async def test_an_unreadable_ca_file_is_a_clear_error(tmp_path: pytest.TempPathFactory, server: str) -> None:
    client = HttpxWebClient(ca_file="/no/such/ca.pem")
    with pytest.raises(ToolError, match=r"net\.ca_file"):
        await client.fetch(f"{server}/page", max_bytes=1000, timeout_s=5)


async def test_a_closed_port_is_a_connection_error(real: HttpxWebClient) -> None:
    with pytest.raises(ToolError, match="could not connect"):
        await real.fetch("http://127.0.0.1:9/", max_bytes=1000, timeout_s=5)


# -- search ------------------------------------------------------------------------------------

DDG = """<html><body><div class="results">
<div class="result results_links result--ad"><a class="result__a" href="https://duckduckgo.com/y.js?ad=1">Ad</a>
<a class="result__snippet" href="#">Buy</a></div>
<div class="result"><h2 class="result__title"><a rel="nofollow" class="result__a"
 href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.python.org%2F3%2F&amp;rut=abc"
 >Python <b>3</b> docs</a></h2>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">The <b>official</b> documentation.</a></div>
<div class="result"><a class="result__a" href="https://example.org/direct">Direct &amp; plain</a>
<div class="result__snippet">No <i>redirect</i>.</div></div>
<div class="result"><a class="result__a"
 href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fthird.example%2F">Third</a></div>
</div></body></html>"""
EXPECTED = [
    SearchResult("Python 3 docs", "https://docs.python.org/3/", "The official documentation."),
    SearchResult("Direct & plain", "https://example.org/direct", "No redirect."),
    SearchResult("Third", "https://third.example/", ""),
]


@pytest.fixture(params=["httpx", "fake"])
async def searcher(request: pytest.FixtureRequest) -> AsyncIterator[WebClient]:
    if request.param == "fake":
        yield FakeWeb(results={"python docs": EXPECTED})
        return
    with respx.mock(assert_all_called=False) as mock:
        mock.get("https://search.test/html/").mock(return_value=httpx.Response(200, text=DDG))
        client = HttpxWebClient(search_url="https://search.test/html/")
        yield client
        await client.aclose()


async def test_search_gives_titles_urls_and_snippets(searcher: WebClient) -> None:
    assert await searcher.search("python docs", max_results=5) == EXPECTED


async def test_search_stops_at_max_results(searcher: WebClient) -> None:
    assert await searcher.search("python docs", max_results=2) == EXPECTED[:2]


@respx.mock
async def test_the_query_goes_to_duckduckgo_by_default() -> None:
    route = respx.get("https://html.duckduckgo.com/html/").mock(return_value=httpx.Response(200, text=DDG))
    client = HttpxWebClient()
    try:
        results = await client.search("python docs", max_results=1)
    finally:
        await client.aclose()
    assert results == EXPECTED[:1]
    assert route.calls.last.request.url.params["q"] == "python docs"


@respx.mock
async def test_a_refused_search_is_a_clear_error() -> None:
    page = '<html><form id="challenge-form"></form><div class="anomaly-modal"></div></html>'
    respx.get("https://html.duckduckgo.com/html/").mock(return_value=httpx.Response(202, text=page))
    client = HttpxWebClient()
    with pytest.raises(ToolError, match="DuckDuckGo refused the search"):
        await client.search("x", max_results=3)
    await client.aclose()


@respx.mock
async def test_search_without_results_is_an_empty_list() -> None:
    respx.get("https://html.duckduckgo.com/html/").mock(
        return_value=httpx.Response(200, text="<html></html>")
    )
    client = HttpxWebClient()
    assert await client.search("zzqqxx", max_results=3) == []
    await client.aclose()
