"""The WebClient over plain httpx (imported on first use): pages as Markdown, DuckDuckGo for search.

Redirects are followed here, one hop at a time, so every hop is checked like the first URL (http or
https only) and counted (at most 5). Before each hop the host is resolved here and the caller's
``check`` sees the addresses; the request then goes to the first of them (the URL's host written as
that address, the name kept in the Host header and for TLS), so a name that resolves again to
another address (DNS rebinding) is not followed. Connections are not kept for reuse, so one made
for one name never carries a request for another. Where a proxy is used (``net.proxy`` or the
usual ``*_PROXY`` variables), the proxy resolves and connects: the name is sent, not pinned, and a
name that cannot be resolved here reaches ``check`` with no address.

The body is streamed and reading stops at ``max_bytes``; one deadline covers the lookups, the
connections, the redirects and the body, but not the time ``check`` takes (a person answering).
``net.proxy`` and ``net.ca_file`` from settings.json are the client's proxy and the certificate
authorities it trusts (besides them, httpx reads the usual ``HTTPS_PROXY`` and ``SSL_CERT_FILE``
variables). Every failure becomes a :class:`ToolError` with one line for the model; no httpx
exception leaves this module.

Search reads DuckDuckGo's HTML endpoint (no key needed). The websearch tool comes here when the
model endpoint has no web search of its own (see :mod:`circle.application.ports.native_search`).
"""

from __future__ import annotations

import asyncio
import codecs
import re
import ssl
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from circle.application.ports.web import FetchedPage, HopCheck, SearchResult, WebHop
from circle.domain.errors import ToolError
from circle.domain.web import check_web_url

from ._hops import Deadline, Resolver, pinned_request, proxied, resolve, system_resolver

if TYPE_CHECKING:
    import httpx

DUCKDUCKGO_HTML = "https://html.duckduckgo.com/html/"
"""DuckDuckGo's HTML endpoint; its pages are read by :mod:`._duckduckgo` (``html.parser``, like
:mod:`.html_markdown`), imported on the first search and the first page, not with this client."""
USER_AGENT = "Mozilla/5.0 (compatible; Circle; +https://github.com/circle-agent/circle)"
ACCEPT = "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/xhtml+xml;q=0.8, */*;q=0.5"
MAX_REDIRECTS = 5
TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/xhtml+xml",
        "application/javascript",
        "application/x-sh",
    }
)
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


class HttpxWebClient:
    """Reads pages and searches the web through one lazily made ``httpx.AsyncClient``."""

    def __init__(
        self,
        *,
        proxy: str | None = None,
        ca_file: str | None = None,
        search_url: str = DUCKDUCKGO_HTML,
        max_redirects: int = MAX_REDIRECTS,
        search_timeout_s: float = 20.0,
        user_agent: str = USER_AGENT,
        resolver: Resolver = system_resolver,
    ) -> None:
        self.proxy = proxy
        self.ca_file = ca_file
        self.search_url = search_url
        self.max_redirects = max_redirects
        self.search_timeout_s = search_timeout_s
        self.user_agent = user_agent
        self.resolver = resolver
        """Where names are resolved (the system's ``getaddrinfo``); the addresses it gives are the
        ones checked and connected to."""
        self._client: httpx.AsyncClient | None = None

    async def fetch(self, url: str, *, max_bytes: int, timeout_s: float, check: HopCheck) -> FetchedPage:
        first = check_web_url(url)
        import httpx

        try:
            return await self._follow(first, max_bytes=max_bytes, deadline=Deadline(timeout_s), check=check)
        except (TimeoutError, httpx.TimeoutException):
            raise ToolError(f"{first} did not answer within {timeout_s:g} s") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise ToolError(_describe(first, exc)) from None

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        import httpx

        from ._duckduckgo import looks_refused, parse_results

        client = self._http()
        try:
            async with asyncio.timeout(self.search_timeout_s):
                response = await client.get(self.search_url, params={"q": query}, follow_redirects=True)
        except (TimeoutError, httpx.TimeoutException):
            raise ToolError(f"the search did not answer within {self.search_timeout_s:g} s") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise ToolError(_describe("the search (DuckDuckGo)", exc)) from None
        html = response.text
        if response.status_code >= 400 or looks_refused(html):
            raise ToolError(
                f"DuckDuckGo refused the search (HTTP {response.status_code}); try again later "
                "or fetch a known page with webfetch"
            )
        return parse_results(html, max_results=max_results)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- fetching ------------------------------------------------------------------------------

    async def _follow(
        self, first: str, *, max_bytes: int, deadline: Deadline, check: HopCheck
    ) -> FetchedPage:
        import httpx

        client = self._http()
        behind_proxy = proxied(self.proxy)
        current, previous = first, ""
        for _ in range(self.max_redirects + 1):
            target = httpx.URL(current)
            async with deadline.running():
                addresses = await resolve(target, self.resolver, behind_proxy=behind_proxy)
            await check(WebHop(current, addresses, previous))
            async with deadline.running():
                response = await self._send(client, target, () if behind_proxy else addresses, deadline)
                try:
                    if not response.is_redirect:
                        return await self._page(first, current, response, max_bytes=max_bytes)
                    location = urljoin(current, response.headers["location"])
                finally:
                    await response.aclose()
            try:
                current, previous = check_web_url(location), current
            except ToolError as exc:
                raise ToolError(f"{current} redirected to a URL that is not read: {exc}") from None
        raise ToolError(f"{first} redirected more than {self.max_redirects} times; stopped at {current}")

    async def _send(
        self, client: httpx.AsyncClient, url: httpx.URL, addresses: tuple[str, ...], deadline: Deadline
    ) -> httpx.Response:
        """Send to each checked address in turn until one connects (none: to the name, via the proxy)."""
        import httpx

        pins: list[str | None] = list(addresses) or [None]
        for index, address in enumerate(pins):
            request = pinned_request(client, url, address, timeout=max(deadline.left, 0.001))
            try:
                return await client.send(request, stream=True)
            except httpx.ConnectError:
                if index == len(pins) - 1:
                    raise
        raise AssertionError("unreachable: the last address raises")

    async def _page(self, first: str, final: str, response: httpx.Response, *, max_bytes: int) -> FetchedPage:
        status = response.status_code
        if status >= 400:
            reason = f" {response.reason_phrase}" if response.reason_phrase else ""
            raise ToolError(f"{final} answered HTTP {status}{reason}")
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media and not _is_text(media):
            raise ToolError(f"{final} is {media}, not a text or HTML page: webfetch reads text only")
        body, truncated = await _read(response, max_bytes)
        is_html = media in HTML_TYPES or (not media and body.lstrip()[:1] == b"<")
        if not media and b"\x00" in body[:4096]:
            raise ToolError(f"{final} is binary, not a text or HTML page: webfetch reads text only")
        text = body.decode(_charset(response.charset_encoding, body, html=is_html), errors="replace")
        if is_html:
            from .html_markdown import html_to_markdown

            text = html_to_markdown(text, base_url=final)
        return FetchedPage(
            url=first, final_url=final, status=status, content_type=media, text=text, truncated=truncated
        )

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            try:
                verify: ssl.SSLContext | bool = (
                    ssl.create_default_context(cafile=self.ca_file) if self.ca_file else True
                )
            except (OSError, ssl.SSLError) as exc:
                raise ToolError(
                    f"net.ca_file in settings.json cannot be used ({self.ca_file}): {exc}"
                ) from None
            try:
                self._client = httpx.AsyncClient(
                    proxy=self.proxy or None,
                    verify=verify,
                    follow_redirects=False,
                    limits=httpx.Limits(max_keepalive_connections=0),
                    headers={"User-Agent": self.user_agent, "Accept": ACCEPT},
                )
            except (ValueError, httpx.InvalidURL) as exc:
                raise ToolError(f"net.proxy in settings.json cannot be used ({self.proxy}): {exc}") from None
        return self._client


async def _read(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """At most ``max_bytes`` of the body, and whether there was more."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


def _is_text(media: str) -> bool:
    return media.startswith("text/") or media in TEXT_TYPES or media.endswith(("+json", "+xml"))


def _charset(declared: str | None, body: bytes, *, html: bool) -> str:
    candidates = [declared]
    if html and (meta := _META_CHARSET.search(body[:4096])):
        candidates.append(meta.group(1).decode("ascii", "replace"))
    for name in candidates:
        if name:
            try:
                return codecs.lookup(name).name
            except LookupError:
                continue
    return "utf-8"


def _describe(what: str, exc: Exception) -> str:
    import httpx

    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ProxyError):
        return f"{what}: the proxy (net.proxy) failed: {detail}"
    if isinstance(exc, httpx.ConnectError):
        return f"{what}: could not connect: {detail}"
    if isinstance(exc, httpx.TooManyRedirects):
        return f"{what}: too many redirects"
    return f"{what}: the request failed: {detail}"


__all__ = ["HttpxWebClient"]
