"""FileSystem: the files the tools read and change."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

FileKind = Literal["file", "dir", "other"]


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str
    kind: FileKind
    size: int
    mtime: float


@dataclass(frozen=True, slots=True)
class LineWindow:
    """Lines ``offset`` .. ``offset + len(lines) - 1`` (1-based) and whether more follow."""

    lines: list[str]
    offset: int
    more: bool


class FileSystem(Protocol):
    """Paths are absolute. Missing files raise ``FileNotFoundError``; other failures ``OSError``."""

    async def resolve(self, path: str) -> str:
        """The real path: symlinks followed, a missing tail kept as written."""
        ...

    async def stat(self, path: str) -> FileInfo | None: ...

    async def list_dir(self, path: str) -> list[FileInfo]: ...

    async def read_bytes(self, path: str, *, limit: int | None = None) -> bytes: ...

    async def read_lines(self, path: str, *, offset: int, limit: int) -> LineWindow:
        """A window of text lines, read without loading the whole file."""
        ...

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Write the whole file, making its folders."""
        ...

    async def delete(self, path: str) -> None: ...

    async def glob(self, root: str, pattern: str, *, limit: int) -> list[str]:
        """Files below ``root`` matching ``pattern``, newest first, at most ``limit``."""
        ...
