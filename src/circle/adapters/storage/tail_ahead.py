"""A resumed session's tail read ahead, on a thread, while the rest of Circle is put together.

``circle --session ID`` draws the session's last messages first. Reading them walks the branch's
path in SQLite (some 0.1 s for 10,000 messages), and SQLite lets go of the GIL meanwhile, so the
walk can run beside the interface's imports instead of after them. :func:`read_ahead` starts it on
a connection of its own; the store's ``tail`` takes what it found for the same head and count,
and reads as usual otherwise. What it found cannot be stale: checkpoints are only ever inserted,
so the path back from a head, its length and what its answers used never change.

Light on purpose: it is started before the first frame, so it loads only ``sqlite3`` and the
statements, not the session's types.

After the tails it sums what the session's calls used (``SESSION_SPENT``, some 60 ms for 10,000
messages), which a session with a compaction or another branch counts before its first frame; the
store's ``spent`` takes that sum while the session still has as many checkpoints as it had then.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from concurrent.futures import Future
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _sql as sql

HEADS = 4
"""Branches whose tails are read ahead at most (a session has one or a few)."""


@dataclass(frozen=True, slots=True)
class Walked:
    """A path's walk as SQLite gave it: the session's checkpoint count, the PATH_SUMMARY rows, and
    the tail's rows (checked and turned into a tail by ``_paths.tail_rows``)."""

    stored: int
    summary: list[tuple[Any, ...]]
    rows: list[tuple[str, str | None, int, str, float]]


def walk(connection: sqlite3.Connection, session_id: str, *, head_id: str, count: int) -> Walked:
    """The walk of the path back from ``head_id`` for its last ``count`` rows: one walk by key for
    its length and what the answers before them used, one for the rows themselves."""
    (stored,) = connection.execute(sql.CHECKPOINT_COUNT, {"session_id": session_id}).fetchone()
    where = {"session_id": session_id, "head_id": head_id, "bound": stored, "count": max(0, count)}
    summary = connection.execute(sql.PATH_SUMMARY, where).fetchall()
    return Walked(int(stored), summary, connection.execute(sql.PATH_TAIL, where).fetchall())


Summed = tuple[int, list[tuple[Any, ...]]]
"""The session's checkpoint count when its calls were summed, and the SESSION_SPENT rows."""

_ahead: dict[tuple[str, str], Future[dict[tuple[str, int], Walked]]] = {}
_summed: dict[tuple[str, str], Future[Summed | None]] = {}
_lock = threading.Lock()


def read_ahead(path: Path, session_id: str, *, count: int) -> None:
    """Start walking the tails of ``session_id``'s branches in the store at ``path`` on a thread;
    nothing when the file is not there (a new one is made by the store, not here)."""
    if not path.exists():
        return
    future: Future[dict[tuple[str, int], Walked]] = Future()
    summed: Future[Summed | None] = Future()
    with _lock:
        _ahead[(str(path), session_id)] = future
        _summed[(str(path), session_id)] = summed
    threading.Thread(
        target=_read, args=(future, summed, path, session_id, count), name="tail-ahead", daemon=True
    ).start()


def _read(
    future: Future[dict[tuple[str, int], Walked]],
    summed: Future[Summed | None],
    path: Path,
    session_id: str,
    count: int,
) -> None:
    try:
        with closing(sqlite3.connect(path, isolation_level=None, check_same_thread=False)) as connection:
            connection.execute("PRAGMA busy_timeout=5000")
            future.set_result(_tails(connection, session_id, count))
            summed.set_result(_sum(connection, session_id))
    except sqlite3.Error:
        pass  # the store's own read meets it again, and says what is wrong
    finally:
        if not future.done():
            future.set_result({})
        if not summed.done():
            summed.set_result(None)


def _tails(connection: sqlite3.Connection, session_id: str, count: int) -> dict[tuple[str, int], Walked]:
    found: dict[tuple[str, int], Walked] = {}
    connection.execute("BEGIN")
    branches = connection.execute(sql.BRANCHES, {"session_id": session_id}).fetchall()
    for _, head_id in branches[:HEADS]:
        if head_id is not None:
            found[(head_id, count)] = walk(connection, session_id, head_id=head_id, count=count)
    connection.execute("COMMIT")
    return found


def _sum(connection: sqlite3.Connection, session_id: str) -> Summed:
    from circle.domain.compaction import SUMMARY_MARKER  # after the tails: they wait for no import

    connection.execute("BEGIN")
    (stored,) = connection.execute(sql.CHECKPOINT_COUNT, {"session_id": session_id}).fetchone()
    rows = connection.execute(sql.SESSION_SPENT, {"session_id": session_id, "marker": SUMMARY_MARKER})
    found = rows.fetchall()
    connection.execute("COMMIT")
    return int(stored), found


async def walked(path: Path, session_id: str) -> dict[tuple[str, int], Walked]:
    """What the read ahead of ``session_id`` found, by head and count, once (it is not kept);
    empty when none was started."""
    with _lock:
        future = _ahead.pop((str(path), session_id), None)
    return {} if future is None else await asyncio.wrap_future(future)


async def summed(path: Path, session_id: str) -> Summed | None:
    """What the read ahead of ``session_id`` summed of its calls (see the module), once; None when
    none was started or it failed."""
    with _lock:
        future = _summed.pop((str(path), session_id), None)
    return None if future is None else await asyncio.wrap_future(future)


__all__ = ["HEADS", "Summed", "Walked", "read_ahead", "summed", "walk", "walked"]
