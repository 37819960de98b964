"""The WebClient contract: the httpx adapter against a loopback server (and respx for DuckDuckGo),
and the fake, held to the same basic assertions."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

import httpx
import pytest
import respx

from circle._testing.web import FakeWeb
from circle.adapters.web._hops import proxied
from circle.adapters.web.httpx_web import HttpxWebClient
from circle.application.ports.web import FetchedPage, SearchResult, WebClient, WebHop
from circle.domain.errors import ApprovalDeniedError, ToolError

PAGE = """<!doctype html><html><head><title>T</title><script>var x = 1;</script></head>
<body><h1>Welcome</h1><p>Read <a href="/docs">the docs</a> first.</p><ul><li>one</li></ul></body></html>"""
BIG = 1_000_000
STOP = threading.Event()


@dataclass
class Hops:
    """The caller's check: records every hop, refuses those whose URL starts with one of ``refuse``."""

    refuse: tuple[str, ...] = ()
    seen: list[WebHop] = field(default_factory=list)

    async def __call__(self, hop: WebHop) -> None:
        self.seen.append(hop)
        if hop.url.startswith(self.refuse):
            raise ApprovalDeniedError(f"webfetch was not approved: {hop.url}")


class Handler(BaseHTTPRequestHandler):
    seen: list[str] = []  # noqa: RUF012 - shared on purpose: what the server was asked
    hosts: list[str] = []  # noqa: RUF012 - the Host header of each request

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        type(self).seen.append(self.path)
        type(self).hosts.append(self.headers.get("Host", ""))
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
        elif path.startswith("/to?"):
            self._redirect(unquote(path[4:]))
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


class Target(Handler):
    """A second server, where redirects lead."""

    seen: list[str] = []  # noqa: RUF012
    hosts: list[str] = []  # noqa: RUF012


@contextlib.contextmanager
def serving(handler: type[Handler]) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    STOP.clear()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    STOP.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving(Handler) as url:
        yield url


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    with serving(Target) as url:
        yield url


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
    page = await web.fetch(f"{server}/page", max_bytes=100_000, timeout_s=5, check=Hops())
    assert page.status == 200 and page.final_url == f"{server}/page"
    assert page.content_type == "text/html"
    assert "# Welcome" in page.text
    assert f"[the docs]({server}/docs)" in page.text
    assert "- one" in page.text
    assert "var x" not in page.text and not page.truncated


async def test_a_missing_page_is_a_clear_error(web: WebClient, server: str) -> None:
    with pytest.raises(ToolError, match="HTTP 404"):
        await web.fetch(f"{server}/nope", max_bytes=1000, timeout_s=5, check=Hops())


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/x", "data:text/plain,hi", "example.com"]
)
async def test_other_schemes_are_refused_before_any_request(web: WebClient, url: str) -> None:
    before = len(Handler.seen)
    with pytest.raises(ToolError, match=r"http and https|not a URL"):
        await web.fetch(url, max_bytes=1000, timeout_s=5, check=Hops())
    assert len(Handler.seen) == before


async def test_the_body_is_cut_at_max_bytes(web: WebClient, server: str) -> None:
    page = await web.fetch(f"{server}/big", max_bytes=10_000, timeout_s=5, check=Hops())
    assert page.truncated and len(page.text) == 10_000


async def test_each_request_is_checked_first_with_the_address_it_goes_to(web: WebClient, server: str) -> None:
    hops = Hops()
    await web.fetch(f"{server}/page", max_bytes=100_000, timeout_s=5, check=hops)
    assert hops.seen == [WebHop(f"{server}/page", ("127.0.0.1",))]


async def test_a_refused_check_stops_the_fetch_before_any_request(web: WebClient, server: str) -> None:
    before = len(Handler.seen)
    with pytest.raises(ApprovalDeniedError, match="not approved"):
        await web.fetch(f"{server}/page", max_bytes=1000, timeout_s=5, check=Hops(refuse=(server,)))
    assert len(Handler.seen) == before


# -- the httpx adapter -------------------------------------------------------------------------


@pytest.fixture
async def real() -> AsyncIterator[HttpxWebClient]:
    client = HttpxWebClient()
    yield client
    await client.aclose()


async def test_redirects_are_followed_up_to_five(real: HttpxWebClient, server: str) -> None:
    page = await real.fetch(f"{server}/hop/4", max_bytes=100_000, timeout_s=5, check=Hops())
    assert page.url == f"{server}/hop/4" and page.final_url == f"{server}/page"
    assert "# Welcome" in page.text


async def test_more_than_five_redirects_stop(real: HttpxWebClient, server: str) -> None:
    with pytest.raises(ToolError, match="redirected more than 5 times"):
        await real.fetch(f"{server}/hop/5", max_bytes=100_000, timeout_s=5, check=Hops())


async def test_a_redirect_to_another_scheme_is_refused(real: HttpxWebClient, server: str) -> None:
    with pytest.raises(ToolError, match="file"):
        await real.fetch(f"{server}/to-file", max_bytes=1000, timeout_s=5, check=Hops())


async def test_a_slow_page_times_out(real: HttpxWebClient, server: str) -> None:
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"did not answer within 0\.3 s"):
        await real.fetch(f"{server}/slow", max_bytes=1000, timeout_s=0.3, check=Hops())
    assert time.monotonic() - started < 3


async def test_plain_text_is_decoded_by_its_charset(real: HttpxWebClient, server: str) -> None:
    page = await real.fetch(f"{server}/text", max_bytes=1000, timeout_s=5, check=Hops())
    assert page.text == "h\u00e9llo" and page.content_type == "text/plain"


async def test_binary_pages_are_refused(real: HttpxWebClient, server: str) -> None:
    with pytest.raises(ToolError, match="application/pdf"):
        await real.fetch(f"{server}/pdf", max_bytes=1000, timeout_s=5, check=Hops())


async def test_requests_go_through_the_configured_proxy(server: str) -> None:
    client, hops = HttpxWebClient(proxy=server), Hops()
    try:
        page = await client.fetch("http://example.invalid/via", max_bytes=1000, timeout_s=5, check=hops)
    finally:
        await client.aclose()
    assert page.text == "through the proxy http://example.invalid/via"
    assert hops.seen == [WebHop("http://example.invalid/via", ())]  # the proxy resolves it


async def test_an_unreadable_ca_file_is_a_clear_error(tmp_path: pytest.TempPathFactory, server: str) -> None:
    client = HttpxWebClient(ca_file="/no/such/ca.pem")
    with pytest.raises(ToolError, match=r"net\.ca_file"):
        await client.fetch(f"{server}/page", max_bytes=1000, timeout_s=5, check=Hops())


async def test_a_closed_port_is_a_connection_error(real: HttpxWebClient) -> None:
    with pytest.raises(ToolError, match="could not connect"):
        await real.fetch("http://127.0.0.1:9/", max_bytes=1000, timeout_s=5, check=Hops())


async def test_a_redirect_is_checked_before_its_target_is_asked(
    real: HttpxWebClient, server: str, target: str
) -> None:
    hops = Hops(refuse=(target,))
    with pytest.raises(ApprovalDeniedError):
        await real.fetch(f"{server}/to?{target}/secret", max_bytes=1000, timeout_s=5, check=hops)
    assert hops.seen[-1] == WebHop(f"{target}/secret", ("127.0.0.1",), f"{server}/to?{target}/secret")
    assert Target.seen == []


async def test_a_redirect_that_is_allowed_is_followed_to_the_other_server(
    real: HttpxWebClient, server: str, target: str
) -> None:
    hops = Hops()
    page = await real.fetch(f"{server}/to?{target}/page", max_bytes=100_000, timeout_s=5, check=hops)
    assert page.final_url == f"{target}/page" and [h.url for h in hops.seen][-1] == f"{target}/page"
    assert Target.seen[-1] == "/page"


@pytest.mark.parametrize("host", ["2130706433", "0x7f.1", "0x7f000001", "127.1"])
async def test_ip_literals_in_every_form_are_checked_as_the_address_they_are(
    real: HttpxWebClient, server: str, host: str
) -> None:
    port = server.rsplit(":", 1)[1]
    hops = Hops()
    page = await real.fetch(f"http://{host}:{port}/page", max_bytes=100_000, timeout_s=5, check=hops)
    assert hops.seen[0].addresses == ("127.0.0.1",)
    assert "# Welcome" in page.text


async def test_an_ip_literal_httpx_cannot_read_is_refused_before_any_request(
    real: HttpxWebClient, server: str
) -> None:
    port, before, hops = server.rsplit(":", 1)[1], len(Handler.seen), Hops()
    with pytest.raises(ToolError, match="Invalid IPv4 address"):
        await real.fetch(f"http://0177.0.0.1:{port}/page", max_bytes=1000, timeout_s=5, check=hops)
    assert len(Handler.seen) == before and hops.seen == []


@dataclass
class Resolver:
    """A resolver answering from ``names``, counting its lookups."""

    names: dict[str, list[str]]
    lookups: list[str] = field(default_factory=list)

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.lookups.append(host)
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.names[host]


async def test_the_request_goes_to_the_address_checked_not_to_a_new_lookup(server: str) -> None:
    # rebind.test does not resolve on this machine: only the checked address can have been used
    port = server.rsplit(":", 1)[1]
    resolver = Resolver({"rebind.test": ["127.0.0.1"]})
    client, hops = HttpxWebClient(resolver=resolver), Hops()
    try:
        page = await client.fetch(
            f"http://rebind.test:{port}/page", max_bytes=100_000, timeout_s=5, check=hops
        )
    finally:
        await client.aclose()
    assert "# Welcome" in page.text and page.final_url == f"http://rebind.test:{port}/page"
    assert hops.seen == [WebHop(f"http://rebind.test:{port}/page", ("127.0.0.1",))]
    assert resolver.lookups == ["rebind.test"]
    assert Handler.hosts[-1] == f"rebind.test:{port}"


async def test_the_next_checked_address_is_tried_when_one_does_not_connect(server: str) -> None:
    port = server.rsplit(":", 1)[1]
    client = HttpxWebClient(resolver=Resolver({"two.test": ["127.0.0.2", "127.0.0.1"]}))
    try:
        page = await client.fetch(
            f"http://two.test:{port}/page", max_bytes=100_000, timeout_s=5, check=Hops()
        )
    finally:
        await client.aclose()
    assert "# Welcome" in page.text


async def test_a_name_that_does_not_resolve_is_a_clear_error_before_any_check() -> None:
    client, hops = HttpxWebClient(resolver=Resolver({})), Hops()
    with pytest.raises(ToolError, match=r"could not resolve nowhere\.test \(Name or service not known\)"):
        await client.fetch("https://nowhere.test/", max_bytes=1000, timeout_s=5, check=hops)
    await client.aclose()
    assert hops.seen == []


@pytest.mark.parametrize(
    ("variables", "behind"),
    [({}, False), ({"NO_PROXY": "localhost"}, False), ({"HTTPS_PROXY": "http://proxy.test:3128"}, True)],
)
def test_only_a_proxy_variable_stops_the_pinning(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], behind: bool
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert proxied(None) is behind
    assert proxied("http://proxy.test:3128")


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
