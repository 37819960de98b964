"""webfetch and websearch through the harness, over FakeWeb and FakeNativeSearch."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from pydantic import JsonValue

from circle._testing.web import FakeNativeSearch, FakeWeb
from circle.application.ports.native_search import NativeSearchAnswer
from circle.application.ports.web import FetchedPage, SearchResult
from circle.application.tools import builtin_tools
from circle.application.tools import web as web_tools
from circle.application.tools.base import ToolOutput
from circle.application.tools.web import MAX_PAGE_CHARS
from circle.domain.errors import (
    CircleError,
    ConfigError,
    ModelConnectionError,
    RateLimitedError,
    ToolError,
)
from circle.domain.messages import Usage
from circle.testing import Call, ScriptedApprover, ScriptedModel, answer

from ._harness import Harness

URL = "https://example.com/guide"
RESULTS = [
    SearchResult("Guide", "https://example.com/guide", "How to do it."),
    SearchResult("Other", "https://other.example/", ""),
]


NATIVE = NativeSearchAnswer(
    results=(
        SearchResult("Circle docs", "https://circle.example/docs", "Circle is a coding agent."),
        SearchResult("Circle repo", "https://code.example/circle", ""),
    ),
    text="Circle is a coding agent for the terminal [1].",
    queries=("circle coding agent",),
    usage=Usage(input=120, output=30),
)
DUCKDUCKGO_TEXT = (
    "1. Guide\n   https://example.com/guide\n   How to do it.\n2. Other\n   https://other.example/"
)


async def run(web: FakeWeb | None, name: str, **arguments: JsonValue) -> ToolOutput:
    return await search_with(None, web, name, **arguments)


async def search_with(
    native: FakeNativeSearch | None, web: FakeWeb | None, name: str, **arguments: JsonValue
) -> ToolOutput:
    ctx = dataclasses.replace(Harness().context(), web=web, native_search=native)
    return await builtin_tools()[name].invoke(dict(arguments), ctx)


async def test_webfetch_returns_the_page_with_where_it_came_from() -> None:
    page = FetchedPage(URL, "https://example.com/guide/", 200, "text/html", "# Guide\n\nStep one.")
    web = FakeWeb(pages={URL: page})
    out = await run(web, "webfetch", url=URL)
    assert (
        out.text.splitlines()[0]
        == f"Fetched https://example.com/guide/ (redirected from {URL}) (HTTP 200, text/html)"
    )
    assert out.text.endswith("# Guide\n\nStep one.")
    assert web.fetches[0].url == URL and web.fetches[0].max_bytes > 0


async def test_webfetch_echoes_what_it_looks_for_at_the_top() -> None:
    out = await run(FakeWeb(pages={URL: "text"}), "webfetch", url=URL, prompt="the install steps")
    assert out.text.startswith("Looking for: the install steps\nFetched")


async def test_a_long_page_is_cut_with_a_note() -> None:
    out = await run(FakeWeb(pages={URL: "z" * (MAX_PAGE_CHARS + 500)}), "webfetch", url=URL)
    assert out.text.count("z") == MAX_PAGE_CHARS
    assert "(truncated: the page is" in out.text


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/f", "javascript:alert(1)"])
async def test_webfetch_refuses_other_schemes_without_fetching(url: str) -> None:
    web = FakeWeb()
    with pytest.raises(ToolError, match="only http and https"):
        await run(web, "webfetch", url=url)
    assert web.fetches == []


async def test_the_web_tools_say_so_without_a_web_client() -> None:
    with pytest.raises(ToolError, match="no web access"):
        await run(None, "webfetch", url=URL)
    with pytest.raises(ToolError, match="no web access"):
        await run(None, "websearch", query="x")


async def test_websearch_numbers_the_results() -> None:
    web = FakeWeb(results={"guide": RESULTS})
    out = await run(web, "websearch", query="guide", max_results=3)
    assert out.text == DUCKDUCKGO_TEXT
    assert web.searches[0].max_results == 3


async def test_websearch_defaults_to_five_and_says_when_nothing_is_found() -> None:
    web = FakeWeb()
    assert (await run(web, "websearch", query="nothing")).text == "no results for nothing"
    assert web.searches[0].max_results == 5


@pytest.mark.parametrize(
    "arguments", [{"query": "x", "max_results": 0}, {"query": "x", "max_results": 11}, {}]
)
async def test_websearch_refuses_bad_arguments(arguments: dict[str, JsonValue]) -> None:
    with pytest.raises(ToolError, match="invalid arguments for websearch"):
        await run(FakeWeb(), "websearch", **arguments)


async def test_the_runtime_hands_its_web_client_to_the_tools_and_asks_for_the_site() -> None:
    web = FakeWeb(pages={URL: "the page text"})
    approver = ScriptedApprover(allow={"webfetch"})
    h = Harness(
        model=ScriptedModel([answer("", Call("webfetch", {"url": URL})), answer("done")]), approver=approver
    )
    runtime = h.runtime()
    runtime.ports.web = web
    session = await runtime.new_session()
    await session.prompt("read the guide")
    assert [f.url for f in web.fetches] == [URL]
    assert [(r.tool_name, r.subject) for r in approver.requests] == [("webfetch", URL)]
    await runtime.aclose()
    assert web.closed


# --- the endpoint's own search first, DuckDuckGo where it has none -----------------------------


async def test_websearch_uses_the_endpoints_own_search_when_it_has_one() -> None:
    web, native = FakeWeb(results={"circle": RESULTS}), FakeNativeSearch(answers={"circle": NATIVE})
    out = await search_with(native, web, "websearch", query="circle", max_results=4)
    assert out.text == (
        "Searched the web for: circle coding agent\n\n"
        "1. Circle docs\n   https://circle.example/docs\n   Circle is a coding agent.\n"
        "2. Circle repo\n   https://code.example/circle\n\n"
        "What the results say (written by the model that searched):\n"
        "Circle is a coding agent for the terminal [1]."
    )
    assert [(s.query, s.max_results) for s in native.searches] == [("circle", 4)]
    assert web.searches == []
    assert out.usage == Usage(input=120, output=30)  # the side request's tokens count in the session


async def test_native_results_are_cut_at_max_results() -> None:
    native = FakeNativeSearch(answers={"circle": NATIVE})
    out = await search_with(native, FakeWeb(), "websearch", query="circle", max_results=1)
    assert "1. Circle docs" in out.text and "Circle repo" not in out.text


async def test_websearch_reads_duckduckgo_when_the_endpoint_refuses_and_keeps_doing_so() -> None:
    web, native = FakeWeb(results={"guide": RESULTS}), FakeNativeSearch(refuses=True)
    first = await search_with(native, web, "websearch", query="guide")
    second = await search_with(native, web, "websearch", query="guide")
    assert first.text == second.text == DUCKDUCKGO_TEXT
    assert len(native.searches) == 1  # the refusal is remembered: no second side request
    assert [s.query for s in web.searches] == ["guide", "guide"]


@pytest.mark.parametrize(
    "error",
    [
        RateLimitedError("rate limited (429): slow down", status=429),
        ModelConnectionError("could not connect to https://api.example.com: refused"),
        ConfigError("no API key: set CIRCLE_API_KEY or ANTHROPIC_API_KEY"),
    ],
)
async def test_a_failing_native_search_is_one_clear_tool_error(error: CircleError) -> None:
    web = FakeWeb(results={"guide": RESULTS})
    with pytest.raises(ToolError) as caught:
        await search_with(FakeNativeSearch(error=error), web, "websearch", query="guide")
    assert str(caught.value) == f"the web search failed: {error}"
    assert "\n" not in str(caught.value)
    assert web.searches == []


async def test_a_native_search_that_only_failed_says_why() -> None:
    failed = NativeSearchAnswer(results=(), errors=("too_many_requests",))
    native = FakeNativeSearch(answers={"guide": failed})
    with pytest.raises(ToolError, match=r"^the web search failed: too_many_requests$"):
        await search_with(native, FakeWeb(), "websearch", query="guide")


async def test_a_native_search_that_found_nothing_says_so() -> None:
    out = await search_with(FakeNativeSearch(), FakeWeb(), "websearch", query="nothing at all")
    assert out.text == "no results for nothing at all"


async def test_an_answer_without_links_is_still_given_with_the_searches_that_failed() -> None:
    partial = NativeSearchAnswer(
        results=(), text="It is sunny.", queries=("weather",), errors=("unavailable",)
    )
    out = await search_with(FakeNativeSearch(answers={"w": partial}), FakeWeb(), "websearch", query="w")
    assert out.text == (
        "Searched the web for: weather\n\n"
        "What the results say (written by the model that searched):\nIt is sunny.\n\n"
        "(some searches failed: unavailable)"
    )


async def test_an_empty_query_is_refused_before_any_search() -> None:
    web, native = FakeWeb(), FakeNativeSearch()
    with pytest.raises(ToolError, match=r"^the query is empty$"):
        await search_with(native, web, "websearch", query="   ")
    assert native.searches == [] and web.searches == []


async def test_without_web_access_the_native_search_is_not_used_either() -> None:
    native = FakeNativeSearch(answers={"x": NATIVE})
    with pytest.raises(ToolError, match="no web access"):
        await search_with(native, None, "websearch", query="x")
    assert native.searches == []


class _SilentSearch:
    """An endpoint whose search never answers."""

    async def search(self, query: str, *, max_results: int) -> NativeSearchAnswer | None:
        await asyncio.Event().wait()
        return None

    async def aclose(self) -> None:
        pass


async def test_a_native_search_that_does_not_answer_times_out_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(web_tools, "NATIVE_SEARCH_TIMEOUT_S", 0.05)
    ctx = dataclasses.replace(Harness().context(), web=FakeWeb(), native_search=_SilentSearch())
    with pytest.raises(ToolError, match=r"^the web search did not finish within 0\.05 s$"):
        await builtin_tools()["websearch"].invoke({"query": "slow"}, ctx)


async def test_the_runtime_hands_its_native_search_to_the_tools() -> None:
    native = FakeNativeSearch(answers={"circle": NATIVE})
    h = Harness(model=ScriptedModel([answer("", Call("websearch", {"query": "circle"})), answer("done")]))
    runtime = h.runtime()
    runtime.ports.web, runtime.ports.native_search = FakeWeb(), native
    session = await runtime.new_session()
    await session.prompt("search for circle")
    assert [s.query for s in native.searches] == ["circle"]
    await runtime.aclose()
