"""The TextSearch contract, held against RipgrepSearch and InMemoryTextSearch alike."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from circle._testing.local import InMemoryFileSystem, InMemoryTextSearch
from circle.adapters.local.search import RipgrepSearch
from circle.application.ports.text_search import GrepLine, GrepQuery, GrepResult, TextSearch
from circle.domain.credentials import credential_globs
from circle.domain.errors import ToolError

FILES = {
    "a.txt": "abc\naxc\na.c\nABC\n",
    "src/b.py": "x = 1\nabc = 2\ny = 3\nz = 4\n",
    "src/c.py": "nothing here\n",
    ".config/d.txt": "hidden abc\n",
    ".git/HEAD": "abc\n",
    "blob.bin": "abc\0\n",
}


@dataclass
class Harness:
    search: TextSearch
    root: str
    put: Callable[[str, str], None]

    def path(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    async def grep(
        self,
        pattern: str,
        *,
        rel: str = "",
        glob: str | None = None,
        case_insensitive: bool = False,
        literal: bool = False,
        context: int = 0,
        max_matches: int = 200,
        exclude_globs: tuple[str, ...] = (),
    ) -> GrepResult:
        query = GrepQuery(
            pattern=pattern,
            path=self.path(rel) if rel else self.root,
            glob=glob,
            case_insensitive=case_insensitive,
            literal=literal,
            context=context,
            max_matches=max_matches,
            exclude_globs=exclude_globs,
        )
        async with asyncio.timeout(10):
            return await self.search.grep(query)

    def found(self, result: GrepResult) -> list[tuple[str, int, str, bool]]:
        return [(os.path.relpath(g.path, self.root), g.line, g.text, g.is_match) for g in result.lines]


def _ripgrep(tmp_path: Path) -> Harness:
    def put(path: str, text: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Path(path).write_text(text)

    return Harness(RipgrepSearch(), os.path.realpath(tmp_path), put)


def _memory() -> Harness:
    fs = InMemoryFileSystem()
    return Harness(InMemoryTextSearch(fs), "/ws", fs.put)


@pytest.fixture(params=["ripgrep", "memory"])
def h(request: pytest.FixtureRequest, tmp_path: Path) -> Harness:
    harness = _ripgrep(tmp_path) if request.param == "ripgrep" else _memory()
    for rel, text in FILES.items():
        harness.put(harness.path(rel), text)
    return harness


async def test_regex_matches_give_paths_line_numbers_and_counts(h: Harness) -> None:
    result = await h.grep("a.c")
    assert h.found(result) == [
        (".config/d.txt", 1, "hidden abc", True),
        ("a.txt", 1, "abc", True),
        ("a.txt", 2, "axc", True),
        ("a.txt", 3, "a.c", True),
        ("src/b.py", 2, "abc = 2", True),
    ]
    assert result.counts == {h.path(".config/d.txt"): 1, h.path("a.txt"): 3, h.path("src/b.py"): 1}
    assert list(result.counts) == sorted(result.counts)
    assert not result.truncated


async def test_literal_pattern_is_not_a_regex(h: Harness) -> None:
    result = await h.grep("a.c", literal=True)
    assert h.found(result) == [("a.txt", 3, "a.c", True)]


async def test_case_insensitive(h: Harness) -> None:
    result = await h.grep("^abc$", case_insensitive=True)
    assert h.found(result) == [("a.txt", 1, "abc", True), ("a.txt", 4, "ABC", True)]
    sensitive = await h.grep("^abc$")
    assert h.found(sensitive) == [("a.txt", 1, "abc", True)]


async def test_context_lines_surround_matches_once(h: Harness) -> None:
    result = await h.grep("^(x|y) =", context=1, rel="src")
    assert h.found(result) == [
        ("src/b.py", 1, "x = 1", True),
        ("src/b.py", 2, "abc = 2", False),
        ("src/b.py", 3, "y = 3", True),
        ("src/b.py", 4, "z = 4", False),
    ]
    assert result.counts == {h.path("src/b.py"): 2}


async def test_glob_filters_file_names_at_any_depth(h: Harness) -> None:
    result = await h.grep("abc", glob="*.py")
    assert h.found(result) == [("src/b.py", 2, "abc = 2", True)]
    negated = await h.grep("abc", glob="!*.py")
    assert [f[0] for f in h.found(negated)] == [".config/d.txt", "a.txt"]


async def test_a_single_file_can_be_searched(h: Harness) -> None:
    result = await h.grep("=", rel="src/b.py")
    assert [(f[1], f[3]) for f in h.found(result)] == [(1, True), (2, True), (3, True), (4, True)]
    assert result.counts == {h.path("src/b.py"): 4}


async def test_no_match_is_an_empty_result(h: Harness) -> None:
    result = await h.grep("zebra")
    assert result == GrepResult()


async def test_stops_after_max_matches_and_says_so(h: Harness) -> None:
    result = await h.grep("a", max_matches=2)
    assert result.truncated
    assert sum(1 for g in result.lines if g.is_match) == 2
    assert sum(result.counts.values()) == 2
    exact = await h.grep("a.c", max_matches=5)
    assert not exact.truncated
    assert sum(exact.counts.values()) == 5


async def test_truncation_keeps_the_trailing_context_of_the_last_match(h: Harness) -> None:
    result = await h.grep("^[xy] =", rel="src/b.py", context=1, max_matches=1)
    assert result.truncated
    assert result.lines == [
        GrepLine(path=h.path("src/b.py"), line=1, text="x = 1", is_match=True),
        GrepLine(path=h.path("src/b.py"), line=2, text="abc = 2", is_match=False),
    ]


async def test_bad_regex_raises_value_error(h: Harness) -> None:
    with pytest.raises(ValueError, match=r"unclosed|missing|unterminated"):
        await h.grep("a(")


async def test_missing_path_raises_file_not_found(h: Harness) -> None:
    with pytest.raises(FileNotFoundError):
        await h.grep("abc", rel="nowhere")


async def test_missing_ripgrep_is_a_clear_tool_error(tmp_path: Path) -> None:
    search = RipgrepSearch(rg_path=str(tmp_path / "no-rg"))
    with pytest.raises(ToolError, match="ripgrep"):
        async with asyncio.timeout(10):
            await search.grep(GrepQuery(pattern="x", path=str(tmp_path)))


async def test_a_glob_with_a_slash_is_relative_to_the_searched_folder(h: Harness) -> None:
    result = await h.grep("abc", glob="src/*.py")
    assert h.found(result) == [("src/b.py", 2, "abc = 2", True)]
    assert await h.grep("abc", rel="src", glob="src/*.py") == GrepResult()


async def test_excluded_files_and_folders_are_not_searched_whatever_their_case(h: Harness) -> None:
    excluded = (".env", "sub/.ENV.local", ".ssh/config", "keys/server.pem", "x/.aws/credentials")
    for rel in (*excluded, ".env.example"):
        h.put(h.path(rel), "abc\n")
    result = await h.grep("abc", exclude_globs=credential_globs())
    assert [f[0] for f in h.found(result)] == [".config/d.txt", ".env.example", "a.txt", "src/b.py"]
    assert await h.grep("abc", glob="*.local", exclude_globs=credential_globs()) == GrepResult()
    assert [f[0] for f in h.found(await h.grep("abc", exclude_globs=("*.TXT", "src", "*.env*")))] == [
        ".ssh/config",
        "keys/server.pem",
        "x/.aws/credentials",
    ]


async def test_a_file_given_as_the_path_is_searched_whatever_the_exclusions(h: Harness) -> None:
    h.put(h.path(".env"), "abc\n")
    result = await h.grep("abc", rel=".env", exclude_globs=credential_globs())
    assert h.found(result) == [(".env", 1, "abc", True)]
