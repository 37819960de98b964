"""WebClient: reading web pages and searching the web (httpx and DuckDuckGo in production).

Only ``http`` and ``https`` URLs are fetched (see :func:`circle.domain.web.check_web_url`). Before
every request, the first and each redirect's, the client resolves the host and awaits the caller's
``check`` with a :class:`WebHop` (the URL and the addresses it resolved to); what ``check`` raises
ends the fetch with that request unsent. The connection then goes to the first address checked,
not to a second lookup of the name (unless a proxy resolves it). Every
failure (a refused scheme, too many redirects, an HTTP error status, a timeout, a connection
failure, a page that is not text) raises :class:`circle.domain.errors.ToolError` with a one-line
reason the model can act on; nothing from the HTTP library crosses this port.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
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


@dataclass(frozen=True, slots=True)
class WebHop:
    """One request a fetch is about to send, before any connection is made."""

    url: str
    addresses: tuple[str, ...]
    """What the host resolved to (an IP literal: itself, written plainly), in the order tried;
    empty when it was not resolved here (a proxy resolves it)."""
    redirected_from: str = ""
    """The URL whose answer redirected here; empty for the first request."""


HopCheck = Callable[[WebHop], Awaitable[None]]
"""Awaited before each request of a fetch; raising stops the fetch (the request is not sent)."""


class WebClient(Protocol):
    async def fetch(self, url: str, *, max_bytes: int, timeout_s: float, check: HopCheck) -> FetchedPage:
        """Fetch ``url``, following up to 5 redirects (each to http or https only), reading at most
        ``max_bytes`` of the body, within ``timeout_s`` seconds (the time ``check`` takes, a person
        answering, not counted).

        Raises:
            ToolError: the URL, the answer or the network failed (see the module docstring).
            Exception: whatever ``check`` raised, unchanged.
        """
        ...

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Up to ``max_results`` results for ``query``, best first (an empty list when none).

        Raises:
            ToolError: the search engine could not be reached or refused the search.
        """
        ...

    async def aclose(self) -> None: ...


__all__ = ["FetchedPage", "HopCheck", "SearchResult", "WebClient", "WebHop"]
