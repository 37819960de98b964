"""What both protocols' native web searches share: the instruction, the refusal rule, the results.

:class:`SideSearch` is the common half of a :class:`~circle.application.ports.native_search.NativeSearch`
adapter: it asks its protocol's subclass for an answer, and remembers for the process when the
endpoint has no native search (see :data:`REFUSING_STATUSES`), so later calls answer None at once.
:class:`Findings` gathers the pages, quotes, queries and errors one or more answers carried.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from circle.application.ports.native_search import NativeSearchAnswer
from circle.application.ports.web import SearchResult
from circle.domain.errors import ModelError, ModelHTTPError, ModelStreamError
from circle.domain.messages import Usage
from circle.domain.model import ModelEvent, TextDelta, UsageReported
from circle.domain.web import WEB_SCHEMES

INSTRUCTIONS = (
    "You search the web for another assistant. Use the web search tool to search for the query you "
    "are given, then answer briefly from what the results say, citing them. Do not answer from memory."
)
MAX_SEARCHES = 3
"""How many searches the endpoint may run for one query."""
MAX_OUTPUT_TOKENS = 4096
REFUSING_STATUSES = frozenset({400, 403, 404, 405, 422, 501})
"""Statuses that mean the endpoint (or the key) does not offer the search tool: 400 and 422 an
unknown or unsupported tool, 403 web search not enabled for the organization, 404, 405 and 501 a
server that does not know the request. The same key serves the session's other requests, so these
point at the tool rather than the key."""
_SNIPPET_CHARS = 300


def search_prompt(query: str) -> str:
    return f"Search the web for: {query}"


def refuses_tool(exc: ModelError) -> bool:
    """Whether ``exc`` says the endpoint has no native search (rather than failing this once)."""
    if isinstance(exc, ModelHTTPError | ModelStreamError):
        return exc.status in REFUSING_STATUSES
    return False


@dataclass
class Findings:
    """The pages, quotes, queries and errors of a native search, gathered as its answers come."""

    pages: dict[str, SearchResult] = field(default_factory=dict)
    """URL -> the page, in the order first seen."""
    queries: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    searched: bool = False
    """The endpoint ran (or tried to run) a search."""
    text: str = ""
    usage: Usage | None = None

    def take(self, event: ModelEvent, pieces: list[str]) -> None:
        """Keep what an answer's event says: its text (in ``pieces``) and its tokens."""
        if isinstance(event, TextDelta):
            pieces.append(event.text)
        elif isinstance(event, UsageReported):
            self.usage = event.usage if self.usage is None else self.usage + event.usage

    def page(self, url: object, title: object = "", snippet: object = "") -> None:
        """Keep a page (http and https only); a later sighting adds the title or quote it lacked."""
        if not isinstance(url, str) or url.split(":", 1)[0].lower() not in WEB_SCHEMES:
            return
        title = " ".join(title.split()) if isinstance(title, str) else ""
        snippet = " ".join(snippet.split())[:_SNIPPET_CHARS] if isinstance(snippet, str) else ""
        known = self.pages.get(url)
        if known is None:
            self.pages[url] = SearchResult(title=title or url, url=url, snippet=snippet)
        elif (not known.snippet and snippet) or (known.title == url and title):
            better = title if known.title == url and title else known.title
            self.pages[url] = SearchResult(title=better, url=url, snippet=known.snippet or snippet)

    def query(self, query: object) -> None:
        self.searched = True
        if isinstance(query, str) and query.strip() and query.strip() not in self.queries:
            self.queries.append(query.strip())

    def add_text(self, text: str) -> None:
        """Text of another answer (a continued turn) is set apart by a blank line."""
        text = text.strip()
        if text:
            self.text = f"{self.text}\n\n{text}" if self.text else text

    def answer(self, *, max_results: int) -> NativeSearchAnswer:
        return NativeSearchAnswer(
            results=tuple(self.pages.values())[:max_results],
            text=self.text,
            queries=tuple(self.queries),
            errors=tuple(self.errors),
            usage=self.usage,
        )


class SideSearch:
    """The common half of a native search adapter; a subclass writes :meth:`_search`.

    Args:
        model: the model to ask (the session's).
    """

    def __init__(self, *, model: str) -> None:
        self.model = model
        self.refused: str | None = None
        """Why the endpoint has no native search, once it showed it has none."""

    async def search(self, query: str, *, max_results: int) -> NativeSearchAnswer | None:
        """See :meth:`circle.application.ports.native_search.NativeSearch.search`."""
        if self.refused is not None:
            return None
        try:
            findings = await self._search(query)
        except ModelError as exc:
            if not refuses_tool(exc):
                raise
            self.refused = str(exc)
            return None
        if not findings.searched:
            self.refused = "the endpoint answered without searching"
            return None
        return findings.answer(max_results=max_results)

    async def _search(self, query: str) -> Findings:
        raise NotImplementedError

    async def aclose(self) -> None:
        """Nothing to close: the model client belongs to the session (its owner closes it)."""


__all__ = [
    "INSTRUCTIONS",
    "MAX_OUTPUT_TOKENS",
    "MAX_SEARCHES",
    "REFUSING_STATUSES",
    "Findings",
    "SideSearch",
    "refuses_tool",
    "search_prompt",
]
