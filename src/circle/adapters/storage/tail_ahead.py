"""A resumed session's tail read ahead, on a thread, while the rest of Circle is put together.

``circle --session ID`` draws the session's last messages first. Reading them walks the branch's
path in SQLite (some 0.1 s for 10,000 messages), and SQLite lets go of the GIL meanwhile, so the
walk can run beside the interface's imports instead of after them. :func:`read_ahead` starts it on
a connection of its own; the store's ``tail`` takes what it found for the same head and count,
and reads as usual otherwise. What it found cannot be stale: checkpoints are only ever inserted,
so the path back from a head, its length and what its answers used never change.

Light on purpose: it is started before the first frame, so it loads only ``sqlite3`` and the
statements, not the session's types.
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


_ahead: dict[tuple[str, str], Future[dict[tuple[str, int], Walked]]] = {}
_lock = threading.Lock()


def read_ahead(path: Path, session_id: str, *, count: int) -> None:
    """Start walking the tails of ``session_id``'s branches in the store at ``path`` on a thread;
    nothing when the file is not there (a new one is made by the store, not here)."""
    if not path.exists():
        return
    future: Future[dict[tuple[str, int], Walked]] = Future()
    with _lock:
        _ahead[(str(path), session_id)] = future
    threading.Thread(
        target=_read, args=(future, path, session_id, count), name="tail-ahead", daemon=True
    ).start()


def _read(future: Future[dict[tuple[str, int], Walked]], path: Path, session_id: str, count: int) -> None:
    found: dict[tuple[str, int], Walked] = {}
    try:
        with closing(sqlite3.connect(path, isolation_level=None, check_same_thread=False)) as connection:
            connection.execute("PRAGMA busy_timeout=5000")
            connection.execute("BEGIN")
            branches = connection.execute(sql.BRANCHES, {"session_id": session_id}).fetchall()
            for _, head_id in branches[:HEADS]:
                if head_id is not None:
                    found[(head_id, count)] = walk(connection, session_id, head_id=head_id, count=count)
            connection.execute("COMMIT")
    except sqlite3.Error:
        found = {}  # the store's own read meets it again, and says what is wrong
    future.set_result(found)


async def walked(path: Path, session_id: str) -> dict[tuple[str, int], Walked]:
    """What the read ahead of ``session_id`` found, by head and count, once (it is not kept);
    empty when none was started."""
    with _lock:
        future = _ahead.pop((str(path), session_id), None)
    return {} if future is None else await asyncio.wrap_future(future)


__all__ = ["HEADS", "Walked", "read_ahead", "walk", "walked"]
