"""The web tools: webfetch (a page as Markdown) and websearch (a numbered list of results).

Both refuse any URL that is not http or https (file:, ftp:, data: ...). webfetch asks per site, as
every request it makes can carry what the model read to whoever runs the site, or reach a service
on the person's machine or network: before each request, the first and each redirect's, the
approver is asked (kind ``other``, so plan mode lets it ask) with the URL as the rules' subject
(see :mod:`circle.domain.web`). The first fetch from a site asks; "allow for this session" and
allow rules let it run, auto mode allows public sites. A host that resolves to a loopback, private,
link-local or otherwise non-public address asks in every mode, auto included, with the address and
its kind given as the reason. ``prompt`` is shown at the top of the page ("Looking for:") since no
second model reads the page for it.

websearch asks nothing: its requests go to the search engine or the model endpoint, not to a URL
the model chose.

websearch uses the model endpoint's own search where its protocol has one (a side request to the
session's model, :class:`~circle.application.ports.native_search.NativeSearch`): the pages found,
then the answer written from them. Where the protocol has none, or the endpoint refused it (the
port then answers None, and keeps answering None), it reads DuckDuckGo's results through the
:class:`~circle.application.ports.web.WebClient`. Any other failure is a one-line tool error.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from pydantic import Field

from circle.application.ports.native_search import NativeSearch, NativeSearchAnswer
from circle.application.ports.web import FetchedPage, SearchResult, WebClient, WebHop
from circle.domain.errors import ConfigError, ModelError, ToolError
from circle.domain.web import WEBFETCH_TOOL, addresses_concern, check_web_url, web_subject

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

MAX_FETCH_BYTES = 5_000_000
"""What is downloaded of a page at most (before it becomes Markdown)."""
FETCH_TIMEOUT_S = 30.0
MAX_PAGE_CHARS = 60_000
"""What the model gets of a page at most."""
NATIVE_SEARCH_TIMEOUT_S = 120.0
"""How long the endpoint's own search may take, its continued turns included."""
MAX_ANSWER_CHARS = 10_000
"""What the model gets of the answer a native search wrote, at most."""
WEBFETCH = WEBFETCH_TOOL
WEBSEARCH = "websearch"


class WebFetchArgs(ToolArgs):
    url: str = Field(description="The full http or https URL of the page.")
    prompt: str | None = Field(None, description="What to look for in the page (optional).")


class WebSearchArgs(ToolArgs):
    query: str = Field(min_length=1, description="What to search for.")
    max_results: int = Field(5, ge=1, le=10, description="How many results, 1 to 10.")


def _web(ctx: ToolContext, tool: str) -> WebClient:
    if ctx.web is None:
        raise ToolError(f"{tool} is not available here: this session has no web access")
    return ctx.web


async def _webfetch(args: WebFetchArgs, ctx: ToolContext) -> ToolOutput:
    web = _web(ctx, WEBFETCH)
    url = check_web_url(args.url)

    async def check(hop: WebHop) -> None:
        await approve_hop(ctx, hop)

    page = await web.fetch(url, max_bytes=MAX_FETCH_BYTES, timeout_s=FETCH_TIMEOUT_S, check=check)
    return ToolOutput(render_page(page, prompt=args.prompt))


async def approve_hop(ctx: ToolContext, hop: WebHop) -> None:
    """Ask before webfetch sends one request; raise :class:`ApprovalDeniedError` when refused.

    The rules see the URL (:func:`~circle.domain.web.web_subject`); an address that is not public
    asks in every mode, the reason naming it.
    """
    subject = web_subject(hop.url)
    host = urlsplit(hop.url).hostname or ""
    concern = addresses_concern(host, hop.addresses)
    summary = f"fetch {subject}"
    if hop.redirected_from:
        summary += f" (redirected from {web_subject(hop.redirected_from)})"
    if concern:
        summary += f": {concern}"
    await ctx.approve(
        WEBFETCH,
        "other",
        summary,
        subject=subject,
        always_ask=bool(concern),
        ask_reason=f"{concern}, which webfetch asks for in every mode" if concern else "",
    )


def render_page(page: FetchedPage, *, prompt: str | None = None, limit: int = MAX_PAGE_CHARS) -> str:
    """The page for the model: what it looks for, where it came from, then the text (cut at ``limit``)."""
    head: list[str] = []
    if prompt and prompt.strip():
        head.append(f"Looking for: {prompt.strip()}")
    source = (
        page.final_url if page.final_url == page.url else f"{page.final_url} (redirected from {page.url})"
    )
    kind = f", {page.content_type}" if page.content_type else ""
    head.append(f"Fetched {source} (HTTP {page.status}{kind})")
    text = page.text.strip()
    notes: list[str] = []
    if len(text) > limit:
        text = text[:limit].rstrip()
        notes.append(
            f"(truncated: the page is {len(page.text):,} characters; only the first {limit:,} are shown)"
        )
    elif page.truncated:
        notes.append(f"(truncated: only the first {MAX_FETCH_BYTES:,} bytes of the page were read)")
    body = text or "(the page has no readable text)"
    return "\n".join(head) + "\n\n" + body + ("\n\n" + "\n".join(notes) if notes else "")


async def _websearch(args: WebSearchArgs, ctx: ToolContext) -> ToolOutput:
    web = _web(ctx, WEBSEARCH)
    query = args.query.strip()
    if not query:
        raise ToolError("the query is empty")
    if ctx.native_search is not None:
        answer = await _native_search(ctx.native_search, query, max_results=args.max_results)
        if answer is not None:
            text = render_native_answer(query, answer, max_results=args.max_results)
            return ToolOutput(text, usage=answer.usage)
    results = await web.search(query, max_results=args.max_results)
    if not results:
        return ToolOutput(f"no results for {query}")
    return ToolOutput(_numbered(results[: args.max_results]))


async def _native_search(search: NativeSearch, query: str, *, max_results: int) -> NativeSearchAnswer | None:
    """The endpoint's own search; None when it has none (DuckDuckGo is read instead)."""
    try:
        async with asyncio.timeout(NATIVE_SEARCH_TIMEOUT_S):
            return await search.search(query, max_results=max_results)
    except TimeoutError:
        raise ToolError(f"the web search did not finish within {NATIVE_SEARCH_TIMEOUT_S:g} s") from None
    except (ModelError, ConfigError) as exc:
        raise ToolError(f"the web search failed: {exc}") from None


def render_native_answer(query: str, answer: NativeSearchAnswer, *, max_results: int) -> str:
    """A native search for the model: what was searched, the pages found, then the answer written.

    Raises:
        ToolError: nothing came back but the search's own errors.
    """
    if not answer.results and not answer.text.strip():
        if answer.errors:
            raise ToolError(f"the web search failed: {', '.join(answer.errors)}")
        return f"no results for {query}"
    searched = "; ".join(answer.queries) or query
    parts = [f"Searched the web for: {searched}"]
    if answer.results:
        parts.append(_numbered(answer.results[:max_results]))
    text = answer.text.strip()
    if len(text) > MAX_ANSWER_CHARS:
        text = text[:MAX_ANSWER_CHARS].rstrip() + "\n(truncated)"
    if text:
        parts.append(f"What the results say (written by the model that searched):\n{text}")
    if answer.errors:
        parts.append(f"(some searches failed: {', '.join(answer.errors)})")
    return "\n\n".join(parts)


def _numbered(results: list[SearchResult] | tuple[SearchResult, ...]) -> str:
    lines: list[str] = []
    for number, result in enumerate(results, start=1):
        lines.append(f"{number}. {result.title}\n   {result.url}")
        if result.snippet:
            lines.append(f"   {result.snippet}")
    return "\n".join(lines)


WEB_FETCH = BuiltinTool(WEBFETCH, WebFetchArgs, _webfetch)
WEB_SEARCH = BuiltinTool(WEBSEARCH, WebSearchArgs, _websearch)
