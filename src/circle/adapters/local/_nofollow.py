"""Reads, writes and deletes that follow no symlink: each part of a resolved path opened from ``/``.

A path the caller has already resolved and judged is walked one part at a time through folder file
descriptors (``os.open(part, O_DIRECTORY | O_NOFOLLOW, dir_fd=...)``), so a part swapped for a symlink
after the judgement fails the call with :class:`PathChangedError` instead of being followed. A write
goes to a temporary file in the same folder descriptor and is renamed over the name there, so it is
as atomic as before and never lands through a link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat as stat_module
from collections.abc import Iterator

from circle.application.ports.file_system import FileInfo, FileUse, PathChangedError

_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(path: str) -> list[str]:
    if not path.startswith("/"):
        raise ValueError(f"paths are absolute: {path!r}")
    return [part for part in os.path.normpath(path).split("/") if part]


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat_module.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _is_plain_file(name: str, dir_fd: int) -> bool:
    """Whether ``name`` is (still) something other than a folder, a symlink or nothing."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return False
    return not (stat_module.S_ISLNK(mode) or stat_module.S_ISDIR(mode))


def _open_dir(name: str, dir_fd: int, *, path: str, use: FileUse, create: bool) -> int:
    """The folder ``name`` in ``dir_fd`` opened without following a link (made when ``create``)."""
    for _ in range(3):
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path) from None
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=dir_fd)
        except OSError as exc:
            # Not a folder when opened: a symlink then, unless a plain file stands there (a real error).
            if exc.errno in (errno.ENOTDIR, errno.ELOOP) and not _is_plain_file(name, dir_fd):
                raise PathChangedError(path, use) from None
            raise type(exc)(exc.errno, exc.strerror, path) from None
    raise PathChangedError(path, use, "a folder kept changing")


@contextlib.contextmanager
def parent(path: str, *, use: FileUse, create: bool = False) -> Iterator[tuple[int, str]]:
    """The folder descriptor holding ``path``'s last part, and that part; the descriptor closes after."""
    parts = _parts(path)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    fd = os.open("/", _DIR_FLAGS)
    try:
        for name in parts[:-1]:
            next_fd = _open_dir(name, fd, path=path, use=use, create=create)
            os.close(fd)
            fd = next_fd
        yield fd, parts[-1]
    finally:
        os.close(fd)


@contextlib.contextmanager
def open_for_reading(path: str, *, expect: FileInfo | None = None) -> Iterator[int]:
    """A read-only descriptor of the file at ``path``, no link followed, of ``expect``'s identity."""
    with parent(path, use="read") as (dir_fd, name):
        try:
            fd = os.open(name, _READ_FLAGS | os.O_NONBLOCK, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
                raise PathChangedError(path, "read") from None
            raise type(exc)(exc.errno, exc.strerror, path) from None
    try:
        st = os.fstat(fd)
        if stat_module.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if expect is not None and expect.inode and (st.st_dev, st.st_ino) != expect.identity:
            raise PathChangedError(path, "read", "another file stands there now")
        os.set_blocking(fd, True)
        yield fd
    finally:
        os.close(fd)


def write_atomically(path: str, data: bytes, *, default_mode: int) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over, keeping the old mode."""
    with parent(path, use="written", create=True) as (dir_fd, name):
        try:
            old = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            mode = default_mode
        else:
            if stat_module.S_ISLNK(old.st_mode):
                raise PathChangedError(path, "written")
            if stat_module.S_ISDIR(old.st_mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            mode = stat_module.S_IMODE(old.st_mode)
        temp = f".{name[:200]}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fchmod(f.fileno(), mode)
                os.fsync(f.fileno())
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise


def unlink(path: str, *, link_too: bool = False) -> None:
    """Remove the file at ``path``; a folder is refused, and so is a symlink unless ``link_too``."""
    with parent(path, use="deleted") as (dir_fd, name):
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError as exc:
            raise type(exc)(exc.errno, exc.strerror, path) from None
        if stat_module.S_ISLNK(st.st_mode) and not link_too:
            raise PathChangedError(path, "deleted")
        if stat_module.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        os.unlink(name, dir_fd=dir_fd)


__all__ = ["open_for_reading", "parent", "unlink", "write_atomically"]
