"""Fakes of the web ports: a WebClient and a NativeSearch answering from dicts, every call recorded."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from circle.application.ports.native_search import NativeSearchAnswer
from circle.application.ports.web import FetchedPage, HopCheck, SearchResult, WebHop
from circle.domain.errors import CircleError, ToolError
from circle.domain.web import check_web_url, ip_literal

PUBLIC_ADDRESS = "93.184.215.14"
"""Where FakeWeb resolves a name it was not told of: a public address."""
MAX_REDIRECTS = 5


@dataclass(frozen=True, slots=True)
class FetchCall:
    url: str
    max_bytes: int
    timeout_s: float


@dataclass(frozen=True, slots=True)
class SearchCall:
    query: str
    max_results: int


@dataclass
class FakeWeb:
    """Serves ``pages`` (URL -> text, or a whole :class:`FetchedPage`) and ``results`` (query -> results).

    Like the real client it refuses URLs that are not http or https, answers an unknown URL as
    HTTP 404, and cuts a page's text at ``max_bytes`` (UTF-8) with ``truncated`` set. A query it
    does not know has no results. ``redirects`` (URL -> Location, relative or not) are followed up
    to 5 times. Before every request it awaits ``check`` with the hop: its host resolved through
    ``hosts`` (name -> addresses; an IP literal is itself, another name is :data:`PUBLIC_ADDRESS`).
    ``fetches``, ``hops`` (checked), ``requested`` (URLs asked once their check passed),
    ``searches`` and ``closed`` say what it saw.
    """

    pages: Mapping[str, str | FetchedPage] = field(default_factory=dict)
    results: Mapping[str, Sequence[SearchResult]] = field(default_factory=dict)
    redirects: Mapping[str, str] = field(default_factory=dict)
    hosts: Mapping[str, Sequence[str]] = field(default_factory=dict)
    fetches: list[FetchCall] = field(default_factory=list)
    hops: list[WebHop] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)
    searches: list[SearchCall] = field(default_factory=list)
    closed: bool = False

    async def fetch(self, url: str, *, max_bytes: int, timeout_s: float, check: HopCheck) -> FetchedPage:
        self.fetches.append(FetchCall(url, max_bytes, timeout_s))
        first = current = check_web_url(url)
        previous = ""
        for _ in range(MAX_REDIRECTS + 1):
            hop = WebHop(current, self.resolve(current), previous)
            self.hops.append(hop)
            await check(hop)
            self.requested.append(current)
            location = self.redirects.get(current)
            if location is None:
                return self._page(first, current, max_bytes=max_bytes)
            try:
                current, previous = check_web_url(urljoin(current, location)), current
            except ToolError as exc:
                raise ToolError(f"{current} redirected to a URL that is not read: {exc}") from None
        raise ToolError(f"{first} redirected more than {MAX_REDIRECTS} times; stopped at {current}")

    def resolve(self, url: str) -> tuple[str, ...]:
        """The addresses ``url``'s host resolves to here."""
        host = urlsplit(url).hostname or ""
        literal = ip_literal(host)
        if literal is not None:
            return (str(literal),)
        return tuple(self.hosts.get(host, (PUBLIC_ADDRESS,)))

    def _page(self, first: str, url: str, *, max_bytes: int) -> FetchedPage:
        page = self.pages.get(url)
        if page is None:
            raise ToolError(f"{url} answered HTTP 404 Not Found")
        if isinstance(page, str):
            page = FetchedPage(url=first, final_url=url, status=200, content_type="text/plain", text=page)
        data = page.text.encode()
        if len(data) <= max_bytes:
            return page
        text = data[:max_bytes].decode(errors="ignore")
        return FetchedPage(page.url, page.final_url, page.status, page.content_type, text, truncated=True)

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.searches.append(SearchCall(query, max_results))
        return list(self.results.get(query, ()))[:max_results]

    async def aclose(self) -> None:
        self.closed = True


@dataclass
class FakeNativeSearch:
    """A model endpoint's own web search, answering from ``answers`` (query -> answer).

    With ``refuses`` the endpoint has no native search: like a real adapter, the first call answers
    None and later ones answer None at once, unrecorded (it remembers). With ``error`` every call
    raises it (an endpoint failing). A query it does not know finds nothing. ``searches`` and
    ``closed`` say what it saw.
    """

    answers: Mapping[str, NativeSearchAnswer] = field(default_factory=dict)
    refuses: bool = False
    error: CircleError | None = None
    searches: list[SearchCall] = field(default_factory=list)
    closed: bool = False
    refused: bool = False
    """It answered None once and now knows the endpoint has no native search."""

    async def search(self, query: str, *, max_results: int) -> NativeSearchAnswer | None:
        if self.refused:
            return None
        self.searches.append(SearchCall(query, max_results))
        if self.refuses:
            self.refused = True
            return None
        if self.error is not None:
            raise self.error
        found = self.answers.get(query, NativeSearchAnswer(results=()))
        return dataclasses.replace(found, results=found.results[:max_results])

    async def aclose(self) -> None:
        self.closed = True


__all__ = ["PUBLIC_ADDRESS", "FakeNativeSearch", "FakeWeb", "FetchCall", "SearchCall"]
