"""A full disk, told as one line: which disk, what Circle could not do, and that nothing was lost.

SQLite says "database or disk is full" (SQLITE_FULL) when a write cannot grow the file, and only
"disk I/O error" when the disk is already full as it opens the file (its ``-shm`` cannot grow);
the OS says ``ENOSPC`` (or ``EDQUOT``, a quota). :func:`is_disk_full` knows them all, asking the
file system how much room is left where SQLite's words are vague.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

LOW_ROOM_BYTES = 256 * 1024
"""Less room than this where SQLite reports an I/O error: the disk is taken to be full."""


def room_left(path: Path | str) -> int | None:
    """Bytes an unprivileged writer may still use on the disk holding ``path``; None if unknown."""
    where = Path(path)
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        stats = os.statvfs(where)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def is_disk_full(error: BaseException, path: Path | str) -> bool:
    """Whether ``error``, met writing at ``path``, comes of a full disk (or an exhausted quota)."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if not isinstance(error, sqlite3.Error):
        return False
    reason = str(error).lower()
    if "database or disk is full" in reason:
        return True
    left = room_left(path) if "disk i/o error" in reason else None
    return left is not None and left < LOW_ROOM_BYTES


def disk_full_message(folder: Path | str, *, doing: str) -> str:
    """The one line for the disk holding ``folder``: ``doing`` is what could not be done there."""
    return (
        f"the disk holding {folder} is full: Circle could not {doing} there; nothing stored was"
        " lost (free some space and run it again)"
    )


__all__ = ["LOW_ROOM_BYTES", "disk_full_message", "is_disk_full", "room_left"]
