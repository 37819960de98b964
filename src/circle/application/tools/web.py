"""The web tools: webfetch (a page as Markdown) and websearch (a numbered list of results).

Reading the web changes nothing on the person's machine, so neither tool asks for approval (like
read_file and grep); what they refuse is any URL that is not http or https (file:, ftp:, data: ...),
before any request and on every redirect. ``prompt`` is shown at the top of the page ("Looking for:")
since no second model reads the page for it.
"""

from __future__ import annotations

from pydantic import Field

from circle.application.ports.web import FetchedPage, WebClient
from circle.domain.errors import ToolError
from circle.domain.web import check_web_url

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

MAX_FETCH_BYTES = 5_000_000
"""What is downloaded of a page at most (before it becomes Markdown)."""
FETCH_TIMEOUT_S = 30.0
MAX_PAGE_CHARS = 60_000
"""What the model gets of a page at most."""
WEBFETCH = "webfetch"
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
    page = await web.fetch(url, max_bytes=MAX_FETCH_BYTES, timeout_s=FETCH_TIMEOUT_S)
    return ToolOutput(render_page(page, prompt=args.prompt))


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
    results = await web.search(query, max_results=args.max_results)
    if not results:
        return ToolOutput(f"no results for {query}")
    lines: list[str] = []
    for number, result in enumerate(results[: args.max_results], start=1):
        lines.append(f"{number}. {result.title}\n   {result.url}")
        if result.snippet:
            lines.append(f"   {result.snippet}")
    return ToolOutput("\n".join(lines))


WEB_FETCH = BuiltinTool(WEBFETCH, WebFetchArgs, _webfetch)
WEB_SEARCH = BuiltinTool(WEBSEARCH, WebSearchArgs, _websearch)
