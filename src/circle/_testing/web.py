"""A fake WebClient: pages and search results from dicts, every call recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from circle.application.ports.web import FetchedPage, SearchResult
from circle.domain.errors import ToolError
from circle.domain.web import check_web_url


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
    does not know has no results. ``fetches``, ``searches`` and ``closed`` say what it saw.
    """

    pages: Mapping[str, str | FetchedPage] = field(default_factory=dict)
    results: Mapping[str, Sequence[SearchResult]] = field(default_factory=dict)
    fetches: list[FetchCall] = field(default_factory=list)
    searches: list[SearchCall] = field(default_factory=list)
    closed: bool = False

    async def fetch(self, url: str, *, max_bytes: int, timeout_s: float) -> FetchedPage:
        self.fetches.append(FetchCall(url, max_bytes, timeout_s))
        url = check_web_url(url)
        page = self.pages.get(url)
        if page is None:
            raise ToolError(f"{url} answered HTTP 404 Not Found")
        if isinstance(page, str):
            page = FetchedPage(url=url, final_url=url, status=200, content_type="text/plain", text=page)
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


__all__ = ["FakeWeb", "FetchCall", "SearchCall"]
