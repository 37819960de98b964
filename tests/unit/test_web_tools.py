"""webfetch and websearch through the harness, over FakeWeb."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import JsonValue

from circle._testing.web import FakeWeb
from circle.application.ports.web import FetchedPage, SearchResult
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolOutput
from circle.application.tools.web import MAX_PAGE_CHARS
from circle.domain.errors import ToolError
from circle.testing import Call, ScriptedApprover, ScriptedModel, answer

from ._harness import Harness

URL = "https://example.com/guide"
RESULTS = [
    SearchResult("Guide", "https://example.com/guide", "How to do it."),
    SearchResult("Other", "https://other.example/", ""),
]


async def run(web: FakeWeb | None, name: str, **arguments: JsonValue) -> ToolOutput:
    ctx = dataclasses.replace(Harness().context(), web=web)
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
    assert (
        out.text
        == "1. Guide\n   https://example.com/guide\n   How to do it.\n2. Other\n   https://other.example/"
    )
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


async def test_the_runtime_hands_its_web_client_to_the_tools_without_asking() -> None:
    web = FakeWeb(pages={URL: "the page text"})
    approver = ScriptedApprover()
    h = Harness(
        model=ScriptedModel([answer("", Call("webfetch", {"url": URL})), answer("done")]), approver=approver
    )
    runtime = h.runtime()
    runtime.ports.web = web
    session = await runtime.new_session()
    await session.prompt("read the guide")
    assert [f.url for f in web.fetches] == [URL]
    assert approver.requests == []
    await runtime.aclose()
    assert web.closed
