"""WebClient: reading web pages and searching the web (httpx and DuckDuckGo in production).

Only ``http`` and ``https`` URLs are fetched (see :func:`circle.domain.web.check_web_url`). Every
failure (a refused scheme, too many redirects, an HTTP error status, a timeout, a connection
failure, a page that is not text) raises :class:`circle.domain.errors.ToolError` with a one-line
reason the model can act on; nothing from the HTTP library crosses this port.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """A fetched page, its text already readable: HTML turned into Markdown, other text as it came."""

    url: str
    """The URL asked for."""
    final_url: str
    """Where the redirects (if any) led."""
    status: int
    content_type: str
    """The media type without parameters (``text/html``), or ``""`` when the server sent none."""
    text: str
    truncated: bool = False
    """The body was longer than ``max_bytes`` and only its start was read."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class WebClient(Protocol):
    async def fetch(self, url: str, *, max_bytes: int, timeout_s: float) -> FetchedPage:
        """Fetch ``url``, following up to 5 redirects (each to http or https only), reading at most
        ``max_bytes`` of the body, all within ``timeout_s`` seconds.

        Raises:
            ToolError: the URL, the answer or the network failed (see the module docstring).
        """
        ...

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Up to ``max_results`` results for ``query``, best first (an empty list when none).

        Raises:
            ToolError: the search engine could not be reached or refused the search.
        """
        ...

    async def aclose(self) -> None: ...


__all__ = ["FetchedPage", "SearchResult", "WebClient"]
