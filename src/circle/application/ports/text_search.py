"""TextSearch: searching file contents (ripgrep in production)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

OutputMode = Literal["content", "files_with_matches", "count"]


@dataclass(frozen=True, slots=True)
class GrepQuery:
    pattern: str
    path: str
    glob: str | None = None
    case_insensitive: bool = False
    literal: bool = False
    context: int = 0
    max_matches: int = 200
    exclude_globs: tuple[str, ...] = ()
    """Files not searched, matched case-insensitively by ripgrep's rules: a glob without ``/`` names a
    file or folder at any depth, one with ``/`` a path below ``path``. A file given as ``path`` is
    searched whatever they say."""


@dataclass(frozen=True, slots=True)
class GrepLine:
    path: str
    line: int
    text: str
    is_match: bool = True


@dataclass(frozen=True, slots=True)
class GrepResult:
    lines: list[GrepLine] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    truncated: bool = False


class TextSearch(Protocol):
    """Raises ``ValueError`` for a pattern that is not a valid regular expression."""

    async def grep(self, query: GrepQuery) -> GrepResult: ...
