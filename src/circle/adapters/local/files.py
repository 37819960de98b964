"""LocalFileSystem: the ``FileSystem`` port on the machine's own disk.

Paths are absolute. Failures surface as the ``OSError`` the operating system gives
(``FileNotFoundError``, ``IsADirectoryError``, ``NotADirectoryError``, ``PermissionError``), as the
port documents. Quick operations run inline; walking a tree (``glob``) and reading a line window from a
large file run in a worker thread so the event loop stays responsive.

Glob patterns are relative to ``root`` and use ``/`` between parts: ``*`` and ``?`` stay within one
part (and match a leading dot), ``[...]`` is a character class, ``{a,b}`` chooses, and a part that is
exactly ``**`` matches any number of folders, none included. The folders in ``SKIPPED_FOLDERS`` are not
entered unless the pattern names one of them as a part (``node_modules/**/*.js``).
"""

from __future__ import annotations

import asyncio
import os
import re
import stat as stat_module
from collections.abc import Callable
from itertools import islice, pairwise

from circle.application.ports.file_system import FileInfo, FileKind, FileScan, LineWindow
from circle.domain.errors import ToolError

from . import _nofollow

SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "__pycache__"})
_MAGIC = re.compile(r"[*?\[{]")
_RESOLVE_TRIES = 5
INLINE_READ_BYTES = 64 * 1024
"""A line window of a file this small (by the ``stat`` it is read by) is read inline: handing it to
a thread costs more CPU than the read (120-150 us a call, a tenth of a tool round)."""


class LocalFileSystem:
    """The ``FileSystem`` port over ``os``; stateless, safe to share."""

    async def resolve(self, path: str) -> str:
        for _ in range(_RESOLVE_TRIES):
            try:
                return os.path.realpath(path)
            except OSError:  # a part changed between realpath's lstat and readlink: look again
                continue
        # still changing each time: say so and do nothing with it, rather than end the call raw
        raise ToolError(f"{path} kept changing while its real path was read (a link swapped back and forth)")

    async def stat(self, path: str) -> FileInfo | None:
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return _info(path, st)

    async def list_dir(self, path: str) -> list[FileInfo]:
        infos: list[FileInfo] = []
        with os.scandir(path) as entries:
            for entry in entries:
                try:
                    st = entry.stat()
                except OSError:  # a broken symlink
                    infos.append(FileInfo(path=entry.path, kind="other", size=0, mtime=0.0))
                    continue
                infos.append(_info(entry.path, st))
        infos.sort(key=lambda info: info.path)
        return infos

    async def read_bytes(
        self,
        path: str,
        *,
        limit: int | None = None,
        follow_symlinks: bool = True,
        expect: FileInfo | None = None,
    ) -> bytes:
        real = path if not follow_symlinks else os.path.realpath(path)
        with _nofollow.open_for_reading(real, expect=expect) as fd, os.fdopen(os.dup(fd), "rb") as f:
            return f.read() if limit is None else f.read(max(limit, 0))

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
        real = path if not follow_symlinks else os.path.realpath(path)
        if expect is not None and expect.size <= INLINE_READ_BYTES:
            return _read_window(real, offset, limit, expect)
        return await asyncio.to_thread(_read_window, real, offset, limit, expect)

    async def write_bytes(self, path: str, data: bytes, *, follow_symlinks: bool = True) -> None:
        real = path if not follow_symlinks else os.path.realpath(path)
        _nofollow.write_atomically(real, data, default_mode=0o666 & ~_umask())

    async def delete(self, path: str, *, follow_symlinks: bool = True) -> None:
        if follow_symlinks:  # the folders followed, a link at the end removed itself
            path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        _nofollow.unlink(path, link_too=follow_symlinks)

    async def glob(self, root: str, pattern: str, *, limit: int) -> list[str]:
        return await asyncio.to_thread(_glob, os.path.normpath(root), pattern, limit)

    async def scan(self, root: str, *, keep: Callable[[str], bool], limit: int) -> FileScan:
        return await asyncio.to_thread(_scan, os.path.normpath(root), keep, limit)


def _info(path: str, st: os.stat_result) -> FileInfo:
    kind: FileKind = "other"
    if stat_module.S_ISREG(st.st_mode):
        kind = "file"
    elif stat_module.S_ISDIR(st.st_mode):
        kind = "dir"
    return FileInfo(
        path=path,
        kind=kind,
        size=st.st_size,
        mtime=st.st_mtime,
        device=st.st_dev,
        inode=st.st_ino,
        links=st.st_nlink,
        ctime=st.st_ctime,
    )


def _read_window(path: str, offset: int, limit: int, expect: FileInfo | None) -> LineWindow:
    """Lines ``offset`` .. ``offset + limit - 1``, reading one line at a time."""
    lines: list[str] = []
    with _nofollow.open_for_reading(path, expect=expect) as fd, os.fdopen(os.dup(fd), "rb") as f:
        raw_lines = islice(f, offset - 1, None)
        for raw in raw_lines:
            if len(lines) == limit:
                return LineWindow(lines=lines, offset=offset, more=True)
            lines.append(_decode_line(raw))
    return LineWindow(lines=lines, offset=offset, more=False)


def _decode_line(raw: bytes) -> str:
    if raw.endswith(b"\n"):
        raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
    return raw.decode("utf-8", errors="replace")


_UMASK: int | None = None


def _umask() -> int:
    """The process umask, read once (Linux exposes it without changing it)."""
    global _UMASK
    if _UMASK is None:
        try:
            with open("/proc/self/status", encoding="ascii") as f:
                found = next((line.split()[1] for line in f if line.startswith("Umask:")), None)
            _UMASK = int(found, 8) if found else None
        except OSError:
            _UMASK = None
        if _UMASK is None:
            _UMASK = os.umask(0o022)
            os.umask(_UMASK)
    return _UMASK


def _glob(root: str, pattern: str, limit: int) -> list[str]:
    if not os.path.isdir(root):
        if os.path.exists(root):
            raise NotADirectoryError(20, "Not a directory", root)
        raise FileNotFoundError(2, "No such file or directory", root)
    patterns = [_split(p) for p in _expand_braces(pattern)]
    patterns = [parts for parts in patterns if parts]
    if not patterns or limit <= 0:
        return []
    # Start below the literal folders a single pattern begins with; stop at its depth without "**".
    fixed = 0
    if len(patterns) == 1:
        parts = patterns[0]
        while fixed < len(parts) - 1 and not _MAGIC.search(parts[fixed]):
            fixed += 1
    start = os.path.join(root, *patterns[0][:fixed])
    if not os.path.isdir(start):
        return []
    unbounded = any("**" in parts for parts in patterns)
    max_depth = None if unbounded else max(len(parts) for parts in patterns) - fixed - 1
    matcher = re.compile("|".join(f"(?:{_translate(parts)})" for parts in patterns))
    allowed = SKIPPED_FOLDERS.intersection(part for parts in patterns for part in parts)
    found: list[tuple[float, str]] = []
    for folder, dirs, files in os.walk(start):
        rel_folder = os.path.relpath(folder, root)
        depth = 0 if folder == start else os.path.relpath(folder, start).count(os.sep) + 1
        if max_depth is not None and depth >= max_depth:
            dirs.clear()
        else:
            dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS or d in allowed]
        for name in files:
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            if matcher.fullmatch(rel):
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if stat_module.S_ISREG(st.st_mode):
                    found.append((st.st_mtime, path))
    found.sort(key=lambda item: (-item[0], item[1]))
    return [path for _, path in found[:limit]]


def _scan(root: str, keep: Callable[[str], bool], limit: int) -> FileScan:
    """The files below ``root`` that ``keep`` accepts, looking at ``limit`` entries at most."""
    found: list[FileInfo] = []
    pending = [root]
    seen = 0
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > limit:
                        return FileScan(files=found, complete=False)
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif keep(entry.path):
                        try:
                            st = entry.stat()
                        except OSError:  # a broken symlink
                            continue
                        if stat_module.S_ISREG(st.st_mode):
                            found.append(_info(entry.path, st))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except PermissionError:
            return FileScan(files=found, complete=False)
    return FileScan(files=found, complete=True)


def _split(pattern: str) -> list[str]:
    return [part for part in pattern.removeprefix("./").split("/") if part and part != "."]


def _expand_braces(pattern: str) -> list[str]:
    """``"*.{ts,tsx}"`` -> ``["*.ts", "*.tsx"]``; nested braces expand too, others stay as written."""
    depth, open_at = 0, -1
    commas: list[int] = []
    for i, c in enumerate(pattern):
        if c == "{":
            depth += 1
            if depth == 1:
                open_at, commas = i, []
        elif c == "," and depth == 1:
            commas.append(i)
        elif c == "}" and depth:
            depth -= 1
            if depth == 0 and commas:
                bounds = [open_at, *commas, i]
                head, tail = pattern[:open_at], pattern[i + 1 :]
                return [
                    expanded
                    for a, b in pairwise(bounds)
                    for expanded in _expand_braces(head + pattern[a + 1 : b] + tail)
                ]
    return [pattern]


def _translate(parts: list[str]) -> str:
    """The regular expression for a glob already split at ``/``."""
    out: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:.*/)?")
        else:
            out.append(_translate_part(part) + ("" if last else "/"))
    return "".join(out)


def _translate_part(part: str) -> str:
    """One part, with fnmatch's rules: ``[!...]`` negates, ``]`` first in a class is literal."""
    out: list[str] = []
    i, n = 0, len(part)
    while i < n:
        c = part[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1 if part[i : i + 1] == "!" else i
            j = j + 1 if part[j : j + 1] == "]" else j
            end = part.find("]", j)
            if end == -1:
                out.append(re.escape(c))
                continue
            body, i = part[i:end], end + 1
            negate = body.startswith("!")
            body = (body[1:] if negate else body).replace("\\", "\\\\").replace("[", "\\[")
            if body.startswith("^"):
                body = "\\" + body
            out.append(f"[^/{body}]" if negate else f"[{body}]")
        else:
            out.append(re.escape(c))
    return "".join(out)


__all__ = ["SKIPPED_FOLDERS", "LocalFileSystem"]
