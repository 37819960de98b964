"""NativeSearch: the model endpoint's own web search, where its protocol has one.

Anthropic Messages offers the server tool ``web_search_20250305`` and the OpenAI Responses API
the hosted ``web_search`` tool; Chat Completions has none. An implementation makes a side
request to the session's model with only that tool enabled and a short instruction to search
the query, and returns what came back: the pages found and the answer written from them.

An endpoint that has no such search (it rejects the tool with 400, 403, 404, 405, 422 or 501, or
answers without searching) is answered with None, and the implementation remembers it: later
calls answer None at once, without a request, for as long as the process runs. The websearch
tool then reads DuckDuckGo instead (:class:`~circle.application.ports.web.WebClient`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from circle.domain.messages import Usage

from .web import SearchResult


@dataclass(frozen=True, slots=True)
class NativeSearchAnswer:
    """What a native web search found."""

    results: tuple[SearchResult, ...]
    """The pages found, in the order the endpoint gave them, each URL once; a snippet is what the
    answer quoted of the page (empty when it quoted nothing)."""
    text: str = ""
    """The answer the searching model wrote from the results ("" when it wrote none)."""
    queries: tuple[str, ...] = ()
    """The searches the endpoint ran, in order."""
    errors: tuple[str, ...] = ()
    """Failures the endpoint's search reported instead of results (``too_many_requests``, ...)."""
    usage: Usage | None = None
    """The tokens the side request spent (all its continued turns); None when not reported."""


class NativeSearch(Protocol):
    async def search(self, query: str, *, max_results: int) -> NativeSearchAnswer | None:
        """Search the web for ``query`` through the model endpoint; None when it has no such search.

        At most ``max_results`` results are kept.

        Raises:
            ModelError: the endpoint failed otherwise (rate limited, overloaded, unreachable, a
                stream cut short); the error's message is one line.
            ConfigError: the endpoint cannot be used at all (no API key, a bad URL).
        """
        ...

    async def aclose(self) -> None: ...


__all__ = ["NativeSearch", "NativeSearchAnswer"]
