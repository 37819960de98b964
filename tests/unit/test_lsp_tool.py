"""The lsp tool through the harness, over FakeLanguageServers."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import JsonValue

from circle._testing.lsp import FakeLanguageServers, LspQuery
from circle.application.tools.base import ToolOutput
from circle.application.tools.lsp import LSP_TOOL
from circle.domain.errors import ToolError

from ._harness import WORKSPACE, Harness


async def run(servers: FakeLanguageServers | None, **arguments: JsonValue) -> ToolOutput:
    ctx = dataclasses.replace(Harness().context(), lsp=servers)
    return await LSP_TOOL.invoke(dict(arguments), ctx)


async def test_positions_are_turned_from_1_based_to_0_based() -> None:
    servers = FakeLanguageServers({("definition", f"{WORKSPACE}/a.py"): "b.py:3:5: def f():"})
    out = await run(servers, operation="definition", file_path="a.py", line=10, character=4)
    assert out.text == "b.py:3:5: def f():"
    assert servers.queries == [LspQuery("definition", f"{WORKSPACE}/a.py", 9, 3)]


async def test_symbols_need_no_position() -> None:
    servers = FakeLanguageServers({("symbols", f"{WORKSPACE}/a.py"): "function f (line 1)"})
    out = await run(servers, operation="symbols", file_path="a.py")
    assert out.text == "function f (line 1)"
    assert servers.queries[0].line == 0 and servers.queries[0].character == 0


async def test_without_language_servers_the_tool_says_so() -> None:
    with pytest.raises(ToolError, match="no language servers"):
        await run(None, operation="hover", file_path="a.py", line=1, character=1)


async def test_a_file_outside_the_workspace_is_refused_before_any_query() -> None:
    servers = FakeLanguageServers()
    with pytest.raises(ToolError, match="outside the workspace"):
        await run(servers, operation="hover", file_path="/etc/hosts", line=1, character=1)
    assert servers.queries == []


async def test_bad_arguments_reach_the_model_as_a_tool_error() -> None:
    with pytest.raises(ToolError, match="invalid arguments for lsp"):
        await run(FakeLanguageServers(), operation="rename", file_path="a.py", line=0)


def test_the_tool_has_its_description_and_the_decided_arguments() -> None:
    spec = LSP_TOOL.spec()
    assert "1-based" in spec.description
    assert set(spec.parameters["properties"]) == {"operation", "file_path", "line", "character"}  # type: ignore[arg-type]
