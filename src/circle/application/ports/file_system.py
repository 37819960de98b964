"""FileSystem: the files the tools read and change."""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

FileKind = Literal["file", "dir", "other"]
FileUse = Literal["read", "written", "deleted"]


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What ``stat`` says of a path (symlinks followed).

    ``device`` and ``inode`` name the file itself, whichever of its names the path is; ``links`` is
    how many names (hard links) it has. An adapter that cannot tell leaves them 0, 0 and 1.
    ``ctime`` is when the file last changed in any way (a program cannot set it back, as it can
    ``mtime``); 0 where the adapter cannot tell, and then ``inode`` changes with every write.
    """

    path: str
    kind: FileKind
    size: int
    mtime: float
    device: int = 0
    inode: int = 0
    links: int = 1
    ctime: float = 0.0

    @property
    def version(self) -> tuple[int, float, float, int, int]:
        """Equal before and after only when the file's content cannot have changed."""
        return (self.size, self.mtime, self.ctime, self.device, self.inode)

    @property
    def identity(self) -> tuple[int, int]:
        """``(device, inode)``: equal for two names of the same file."""
        return (self.device, self.inode)


@dataclass(frozen=True, slots=True)
class LineWindow:
    """Lines ``offset`` .. ``offset + len(lines) - 1`` (1-based) and whether more follow."""

    lines: list[str]
    offset: int
    more: bool


@dataclass(frozen=True, slots=True)
class FileScan:
    """The files a :meth:`FileSystem.scan` kept, and whether it saw the whole tree."""

    files: list[FileInfo] = field(default_factory=list)
    complete: bool = True


class PathChangedError(OSError):
    """A path met with ``follow_symlinks=False`` was not what it had been: a symlink (or another
    file) stands where the caller had judged it. Nothing was read, written or deleted."""

    def __init__(self, path: str, use: FileUse, what: str = "a symlink appeared") -> None:
        verb = {"read": "being read", "written": "being written", "deleted": "being deleted"}[use]
        message = f"{path} changed while it was {verb}: {what}; nothing was {use}"
        super().__init__(errno.ELOOP, message, path)
        self.message = message

    def __str__(self) -> str:
        return self.message


class FileSystem(Protocol):
    """Paths are absolute. Missing files raise ``FileNotFoundError``; other failures ``OSError``.

    ``follow_symlinks=False`` (reads, writes, deletes) takes a path already resolved (``resolve``) and
    walks it part by part from ``/`` without following a symlink anywhere in it: one that appeared
    since raises :class:`PathChangedError` and nothing is done. ``expect`` (reads) is the ``stat``
    the caller judged: a file of another identity at the path raises it too.
    """

    async def resolve(self, path: str) -> str:
        """The real path: symlinks followed, a missing tail kept as written."""
        ...

    async def stat(self, path: str) -> FileInfo | None: ...

    async def list_dir(self, path: str) -> list[FileInfo]: ...

    async def read_bytes(
        self,
        path: str,
        *,
        limit: int | None = None,
        follow_symlinks: bool = True,
        expect: FileInfo | None = None,
    ) -> bytes: ...

    async def read_lines(
        self,
        path: str,
        *,
        offset: int,
        limit: int,
        follow_symlinks: bool = True,
        expect: FileInfo | None = None,
    ) -> LineWindow:
        """A window of text lines, read without loading the whole file."""
        ...

    async def write_bytes(self, path: str, data: bytes, *, follow_symlinks: bool = True) -> None:
        """Write the whole file, making its folders."""
        ...

    async def delete(self, path: str, *, follow_symlinks: bool = True) -> None: ...

    async def glob(self, root: str, pattern: str, *, limit: int) -> list[str]:
        """Files below ``root`` matching ``pattern``, newest first, at most ``limit``."""
        ...

    async def scan(self, root: str, *, keep: Callable[[str], bool], limit: int) -> FileScan:
        """Every file below ``root`` whose path ``keep`` accepts, hidden and ignored ones included.

        Folder symlinks are not entered; a kept symlink to a file is stat'ed through. At most
        ``limit`` entries are looked at: past that the scan stops with ``complete=False``. A missing
        ``root`` is an empty, complete scan.
        """
        ...
