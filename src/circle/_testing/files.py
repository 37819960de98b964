"""The fake of the ``FileSystem`` port: files, folders, symlinks and hard links in dictionaries.

It follows the same contract as ``circle.adapters.local.files.LocalFileSystem``
(``tests/contract/test_file_system.py`` holds both to it).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from itertools import count

from circle.application.ports.file_system import FileInfo, FileScan, FileUse, LineWindow, PathChangedError

SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "__pycache__"})


def _error(cls: type[OSError], code: int, path: str) -> OSError:
    return cls(code, os.strerror(code), path)


class InMemoryFileSystem:
    """The ``FileSystem`` port over dictionaries, with the real one's semantics and errors.

    Attributes:
        files: Real path -> content. Folders are implied by the paths of files, links and ``dirs``.
        dirs: Folders made explicitly (empty ones).
        symlinks: Link path -> target, absolute or relative to the link's folder; followed by every
            operation but ``delete``, which removes the link itself; with ``follow_symlinks=False`` a
            link at any part of the path raises ``PathChangedError``.
        mtimes: Path -> modification time. Each write advances an internal clock by one second.
        inodes: Path -> inode number; two paths with the same number are hard links of one file
            (``hardlink``). A write replaces the file with a new one, as the real atomic write does.
        writes: Real paths written through the port, in order.
        deleted: Paths deleted through the port, in order.
    """

    def __init__(
        self, files: Mapping[str, bytes | str] | None = None, *, symlinks: Mapping[str, str] | None = None
    ) -> None:
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = set()
        self.symlinks: dict[str, str] = dict(symlinks or {})
        self.mtimes: dict[str, float] = {}
        self.writes: list[str] = []
        self.deleted: list[str] = []
        self.inodes: dict[str, int] = {}
        self._time = 1_700_000_000.0
        self._next_inode = count(1000)
        for path, data in (files or {}).items():
            self.put(path, data)

    # Set-up helpers (synchronous, not part of the port).

    def put(self, path: str, data: bytes | str, *, mtime: float | None = None) -> None:
        """Create or replace a file without recording a write."""
        path = posixpath.normpath(path)
        self._time += 1
        self.files[path] = data.encode() if isinstance(data, str) else data
        self.mtimes[path] = self._time if mtime is None else mtime
        self.inodes[path] = next(self._next_inode)

    def hardlink(self, link: str, existing: str) -> None:
        """Give the file at ``existing`` a second name, ``link`` (as ``os.link``)."""
        real = self._existing(existing, want_dir=False)
        link = posixpath.normpath(link)
        self.files[link] = self.files[real]
        self.mtimes[link] = self.mtimes[real]
        self.inodes[link] = self._inode(real)

    def mkdir(self, path: str) -> None:
        self.dirs.add(posixpath.normpath(path))

    def symlink(self, link: str, target: str) -> None:
        self.symlinks[posixpath.normpath(link)] = target

    # The port.

    async def resolve(self, path: str) -> str:
        return self._resolve(path)

    async def stat(self, path: str) -> FileInfo | None:
        real = self._resolve(path)
        if real in self.files:
            inode = self._inode(real)
            return FileInfo(
                path=path,
                kind="file",
                size=len(self.files[real]),
                mtime=self.mtimes[real],
                device=1,
                inode=inode,
                links=sum(1 for other in self.files if self._inode(other) == inode),
            )
        if self._is_dir(real):
            return FileInfo(path=path, kind="dir", size=0, mtime=self.mtimes.get(real, 0.0))
        return None

    async def list_dir(self, path: str) -> list[FileInfo]:
        real = self._existing(path, want_dir=True)
        prefix = real.rstrip("/") + "/"
        names = {key[len(prefix) :].split("/")[0] for key in self._keys() if key.startswith(prefix)}
        infos = []
        for name in sorted(names):
            child = posixpath.join(path, name)
            infos.append(await self.stat(child) or FileInfo(path=child, kind="other", size=0, mtime=0.0))
        return infos

    async def read_bytes(
        self,
        path: str,
        *,
        limit: int | None = None,
        follow_symlinks: bool = True,
        expect: FileInfo | None = None,
    ) -> bytes:
        data = self.files[self._readable(path, follow_symlinks=follow_symlinks, expect=expect)]
        return data if limit is None else data[: max(limit, 0)]

    async def read_lines(
        self,
        path: str,
        *,
        offset: int,
        limit: int,
        follow_symlinks: bool = True,
        expect: FileInfo | None = None,
    ) -> LineWindow:
        if offset < 1 or limit < 0:
            raise ValueError(f"offset must be 1 or more and limit 0 or more, not {offset} and {limit}")
        lines = _split_lines(self.files[self._readable(path, follow_symlinks=follow_symlinks, expect=expect)])
        window = lines[offset - 1 : offset - 1 + limit]
        return LineWindow(lines=window, offset=offset, more=len(lines) > offset - 1 + limit)

    async def write_bytes(self, path: str, data: bytes, *, follow_symlinks: bool = True) -> None:
        real = self._resolve(path) if follow_symlinks else self._unlinked(path, "written")
        if self._is_dir(real):
            raise _error(IsADirectoryError, errno.EISDIR, path)
        self._check_parents(real, path)
        self._time += 1
        self.files[real] = bytes(data)
        self.mtimes[real] = self._time
        self.inodes[real] = next(self._next_inode)
        self.writes.append(real)

    async def delete(self, path: str, *, follow_symlinks: bool = True) -> None:
        if follow_symlinks:
            where = posixpath.join(self._resolve(posixpath.dirname(path)), posixpath.basename(path))
        else:
            where = self._unlinked(path, "deleted")
        if where in self.symlinks:
            del self.symlinks[where]
        elif where in self.files:
            del self.files[where]
            self.mtimes.pop(where, None)
            self.inodes.pop(where, None)
        elif self._is_dir(where):
            raise _error(IsADirectoryError, errno.EISDIR, path)
        else:
            raise _error(FileNotFoundError, errno.ENOENT, path)
        self.deleted.append(path)

    async def glob(self, root: str, pattern: str, *, limit: int) -> list[str]:
        real = self._existing(root, want_dir=True)
        base = posixpath.normpath(root)
        patterns = [_parts(p) for p in _expand_braces(pattern)]
        patterns = [p for p in patterns if p]
        allowed = SKIPPED_FOLDERS.intersection(part for parts in patterns for part in parts)
        found: list[tuple[float, str]] = []
        for rel in self._files_below(real):
            parts = rel.split("/")
            if any(d in SKIPPED_FOLDERS and d not in allowed for d in parts[:-1]):
                continue
            if any(_match_parts(p, parts) for p in patterns):
                target = self._resolve(posixpath.join(real, rel))
                found.append((self.mtimes.get(target, 0.0), posixpath.join(base, rel)))
        found.sort(key=lambda item: (-item[0], item[1]))
        return [path for _, path in found[: max(limit, 0)]]

    async def scan(self, root: str, *, keep: Callable[[str], bool], limit: int) -> FileScan:
        base = posixpath.normpath(root)
        prefix = base.rstrip("/") + "/"
        found: list[FileInfo] = []
        below = sorted(k for k in {*self.files, *self.symlinks} if k.startswith(prefix))
        for seen, path in enumerate(below, start=1):
            if seen > limit:
                return FileScan(files=found, complete=False)
            if any(
                posixpath.join(base, *path[len(prefix) :].split("/")[:i]) in self.symlinks
                for i in range(1, path[len(prefix) :].count("/") + 1)
            ):
                continue  # below a folder symlink, which a scan does not enter
            if keep(path) and (info := await self.stat(path)) is not None and info.kind == "file":
                found.append(info)
        return FileScan(files=found, complete=True)

    # Internals.

    def _inode(self, real: str) -> int:
        """The inode of the file at ``real``, given one on first sight when a test set ``files`` itself."""
        if real not in self.inodes:
            self.inodes[real] = next(self._next_inode)
        return self.inodes[real]

    def _unlinked(self, path: str, use: FileUse) -> str:
        """``path`` as written, refused when a symlink stands at any of its parts."""
        real = posixpath.normpath(path)
        parts = real.split("/")
        for i in range(2, len(parts) + 1):
            if "/".join(parts[:i]) in self.symlinks:
                raise PathChangedError(path, use)
        return real

    def _readable(self, path: str, *, follow_symlinks: bool, expect: FileInfo | None) -> str:
        real = self._existing(path if follow_symlinks else self._unlinked(path, "read"), want_dir=False)
        if expect is not None and expect.inode and self._inode(real) != expect.inode:
            raise PathChangedError(path, "read", "another file stands there now")
        return real

    def _keys(self) -> set[str]:
        return {*self.files, *self.dirs, *self.symlinks}

    def _is_dir(self, real: str) -> bool:
        prefix = real.rstrip("/") + "/"
        return real == "/" or real in self.dirs or any(k.startswith(prefix) for k in self._keys())

    def _files_below(self, real: str) -> list[str]:
        """Paths relative to ``real`` of the files, and the links to files, below it."""
        prefix = real.rstrip("/") + "/"
        rels = [k[len(prefix) :] for k in self.files if k.startswith(prefix)]
        links = [k[len(prefix) :] for k in self.symlinks if k.startswith(prefix)]
        return rels + [rel for rel in links if self._resolve(prefix + rel) in self.files]

    def _existing(self, path: str, *, want_dir: bool) -> str:
        """The real path of an existing file (or folder), else the error the OS would give."""
        real = self._resolve(path)
        if real in self.files:
            if want_dir:
                raise _error(NotADirectoryError, errno.ENOTDIR, path)
            return real
        if self._is_dir(real):
            if not want_dir:
                raise _error(IsADirectoryError, errno.EISDIR, path)
            return real
        self._check_parents(real, path)
        raise _error(FileNotFoundError, errno.ENOENT, path)

    def _check_parents(self, real: str, path: str) -> None:
        parent = posixpath.dirname(real)
        while parent != "/":
            if parent in self.files:
                raise _error(NotADirectoryError, errno.ENOTDIR, path)
            parent = posixpath.dirname(parent)

    def _resolve(self, path: str) -> str:
        """``os.path.realpath`` over ``symlinks``: links followed part by part, a missing tail kept."""
        if not path.startswith("/"):
            raise ValueError(f"paths are absolute: {path!r}")
        pending = list(reversed(path.split("/")))
        resolved = "/"
        hops = 0
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                resolved = posixpath.dirname(resolved)
                continue
            candidate = posixpath.join(resolved, part)
            target = self.symlinks.get(candidate)
            if target is None or hops >= 40:  # not a link, or a loop: keep it as written
                resolved = candidate
                continue
            hops += 1
            if target.startswith("/"):
                resolved = "/"
            pending.extend(reversed(target.split("/")))
        return resolved


def _split_lines(data: bytes) -> list[str]:
    if not data:
        return []
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    return [line.removesuffix(b"\r").decode("utf-8", errors="replace") for line in raw]


def _parts(pattern: str) -> list[str]:
    return [part for part in pattern.removeprefix("./").split("/") if part and part != "."]


def _match_parts(pattern: list[str], parts: list[str]) -> bool:
    """Glob parts against path parts; ``**`` takes any number of folders (last: at least one part)."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        if len(pattern) == 1:
            return bool(parts)
        return any(_match_parts(pattern[1:], parts[i:]) for i in range(len(parts)))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _match_parts(pattern[1:], parts[1:])


def _expand_braces(pattern: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd``; braces without a comma stay as written."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [out for choice in match.group(1).split(",") for out in _expand_braces(head + choice + tail)]


__all__ = ["SKIPPED_FOLDERS", "InMemoryFileSystem"]
