"""StdioLanguageServers against a real pylsp (with pyflakes), on a small package in tmp_path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from circle.adapters.lsp.servers import StdioLanguageServers, find_program
from circle.domain.errors import ToolError

pytestmark = pytest.mark.skipif(
    find_program("pylsp") is None,
    reason="needs python-lsp-server (pip install 'python-lsp-server[pyflakes]')",
)

UTIL = '''"""Utilities."""


def greet(name: str) -> str:
    """Return a friendly greeting for name."""
    return f"hello {name}"


class Counter:
    """Counts things."""

    def bump(self) -> int:
        return 1
'''
MAIN = """from pkg.util import greet


def run() -> str:
    return greet("world") + missing_name
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text(UTIL)
    (tmp_path / "pkg" / "main.py").write_text(MAIN)
    return tmp_path


@pytest.fixture
async def servers(workspace: Path) -> AsyncIterator[StdioLanguageServers]:
    lsp = StdioLanguageServers(workspace)
    yield lsp
    async with asyncio.timeout(15):
        await lsp.aclose()


async def test_definition_of_a_function_used_in_another_module(
    servers: StdioLanguageServers, workspace: Path
) -> None:
    async with asyncio.timeout(60):
        text = await servers.query(
            "definition", file_path=str(workspace / "pkg/main.py"), line=4, character=12
        )
    assert "pkg/util.py:4:5: def greet(name: str) -> str:" in text


async def test_references_list_every_use(servers: StdioLanguageServers, workspace: Path) -> None:
    async with asyncio.timeout(60):
        text = await servers.query(
            "references", file_path=str(workspace / "pkg/util.py"), line=3, character=5
        )
    assert "pkg/main.py:1:22: from pkg.util import greet" in text
    assert 'pkg/main.py:5:12: return greet("world") + missing_name' in text


async def test_hover_returns_the_docstring(servers: StdioLanguageServers, workspace: Path) -> None:
    async with asyncio.timeout(60):
        text = await servers.query("hover", file_path=str(workspace / "pkg/util.py"), line=3, character=5)
    assert "Return a friendly greeting for name." in text


async def test_symbols_list_the_functions_and_classes(servers: StdioLanguageServers, workspace: Path) -> None:
    async with asyncio.timeout(60):
        text = await servers.query("symbols", file_path=str(workspace / "pkg/util.py"), line=0, character=0)
    assert "function greet (line 4)" in text
    assert "class Counter (line 9)" in text
    assert "  method bump (line 12)" in text


async def test_diagnostics_report_an_undefined_name(servers: StdioLanguageServers, workspace: Path) -> None:
    async with asyncio.timeout(60):
        text = await servers.query(
            "diagnostics", file_path=str(workspace / "pkg/main.py"), line=0, character=0
        )
    assert "pkg/main.py:5:29 error undefined name 'missing_name'" in text


async def test_diagnostics_follow_the_file_on_disk(servers: StdioLanguageServers, workspace: Path) -> None:
    main = workspace / "pkg/main.py"
    async with asyncio.timeout(60):
        await servers.query("diagnostics", file_path=str(main), line=0, character=0)
        main.write_text(MAIN.replace(" + missing_name", ""))
        text = await servers.query("diagnostics", file_path=str(main), line=0, character=0)
    assert "missing_name" not in text


async def test_an_unknown_language_is_a_tool_error(servers: StdioLanguageServers, workspace: Path) -> None:
    (workspace / "notes.xyz").write_text("x")
    with pytest.raises(ToolError, match=r"no language server for \.xyz files"):
        await servers.query("hover", file_path=str(workspace / "notes.xyz"), line=0, character=0)
