"""A branch's path in the stored rows: all of it parsed (on a thread when it is long), its tail walked
by key without reading the rest, and the copy of it a fork makes."""

from __future__ import annotations

import sqlite3
from typing import Any
from uuid import uuid4

from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint, path_to
from circle.domain.compaction import SUMMARY_MARKER
from circle.domain.errors import StorageError
from circle.domain.messages import Message, Usage

from . import _sql as sql
from ._rows import CheckpointTuple, LazyCheckpoints, bulk_parsing
from .tail_ahead import Walked, walk

PARSED_INLINE = 1_000
"""Messages a history read parses on the event loop at most; a longer one parses on a thread."""


def exists(connection: sqlite3.Connection, statement: str, **params: str) -> bool:
    return connection.execute(statement, params).fetchone() is not None


def head(connection: sqlite3.Connection, session_id: str, branch: str) -> tuple[bool, str | None]:
    """Whether the branch exists, and its head."""
    row = connection.execute(sql.BRANCH_HEAD, {"session_id": session_id, "name": branch}).fetchone()
    return (False, None) if row is None else (True, row[0])


def parsed_path(session_id: str, branch: str, rows: list[CheckpointTuple], head_id: str) -> list[Checkpoint]:
    """The checkpoints from the root to ``head_id`` among ``rows``, each message parsed as reached."""
    try:
        with bulk_parsing():
            return path_to(LazyCheckpoints(session_id, rows), head_id)
    except ValueError as error:
        raise StorageError(f"branch {branch!r} of session {session_id} is broken: {error}") from error


def tail_rows(
    connection: sqlite3.Connection,
    session_id: str,
    *,
    branch: str,
    head_id: str,
    count: int,
    walked: Walked | None = None,
) -> tuple[list[CheckpointTuple], int, tuple[tuple[str | None, Usage], ...]]:
    """The last ``count`` rows of the path to ``head_id``, oldest first, the path's length, and
    what the answers before those rows used by model (summed by SQLite from the stored JSON, so
    none of those messages is parsed here). The path is walked by key (``walked``: the walk read
    ahead, see :mod:`.tail_ahead`); a broken one is a StorageError."""
    done = walk(connection, session_id, head_id=head_id, count=count) if walked is None else walked
    length, oldest_parent, depth = done.summary[0][:3]
    if length == 0 or oldest_parent is not None or depth >= done.stored:
        problem = "a cycle" if length and depth >= done.stored else "a missing checkpoint"
        raise StorageError(f"branch {branch!r} of session {session_id} is broken: {problem}")
    spent = tuple(
        (model, Usage(input=int(i or 0), output=int(o or 0), cache_read=int(r or 0), cache_write=int(w or 0)))
        for _, _, _, found, model, i, o, r, w in done.summary
        if found
    )
    return list(done.rows), int(length), spent


def spent_rows(
    connection: sqlite3.Connection, session_id: str, *, ahead: tuple[int, list[tuple[Any, ...]]] | None = None
) -> tuple[tuple[str | None, Usage], ...]:
    """What every call the session stored used, by model (:func:`circle.domain.spend.session_spent`),
    summed by SQLite from the stored JSON: no message is parsed. ``ahead``: a sum made before (its
    checkpoint count, its rows), taken while the session has as many (they are only inserted)."""
    if (
        ahead is not None
        and ahead[0] == connection.execute(sql.CHECKPOINT_COUNT, {"session_id": session_id}).fetchone()[0]
    ):
        rows = ahead[1]
    else:
        rows = connection.execute(
            sql.SESSION_SPENT, {"session_id": session_id, "marker": SUMMARY_MARKER}
        ).fetchall()
    return tuple(
        (model, Usage(input=int(i or 0), output=int(o or 0), cache_read=int(r or 0), cache_write=int(w or 0)))
        for model, i, o, r, w in rows
    )


def fork_path(connection: sqlite3.Connection, session_id: str, at: str | None) -> list[CheckpointTuple]:
    """The stored rows from the root to ``at`` (None: the main head), oldest first."""
    if at is None:
        _, at = head(connection, session_id, MAIN_BRANCH)
    elif not exists(connection, sql.CHECKPOINT_IN_SESSION, checkpoint_id=at, session_id=session_id):
        raise StorageError(f"no checkpoint {at} in session {session_id}")
    rows: list[CheckpointTuple] = connection.execute(
        sql.CHECKPOINT_ROWS, {"session_id": session_id}
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    try:
        with bulk_parsing():
            path = path_to(LazyCheckpoints(session_id, rows), at)
    except ValueError as error:
        raise StorageError(f"session {session_id} is broken at {at}: {error}") from error
    return [by_id[cp.id] for cp in path]


def copy_path(connection: sqlite3.Connection, path: list[CheckpointTuple], session_id: str) -> list[str]:
    """Insert ``path``'s messages as the main branch of ``session_id``; their new ids."""
    parent_id: str | None = None
    new_ids: list[str] = []
    for seq, (_, _, _, message_json, created_at) in enumerate(path, start=1):
        checkpoint_id = uuid4().hex
        role = Message.model_validate_json(message_json).role
        connection.execute(
            sql.INSERT_CHECKPOINT,
            {
                "id": checkpoint_id,
                "session_id": session_id,
                "parent_id": parent_id,
                "seq": seq,
                "role": role,
                "message_json": message_json,
                "created_at": created_at,
            },
        )
        parent_id = checkpoint_id
        new_ids.append(checkpoint_id)
    if parent_id is not None:
        connection.execute(
            sql.MOVE_HEAD, {"session_id": session_id, "name": MAIN_BRANCH, "head_id": parent_id}
        )
    return new_ids


__all__ = [
    "PARSED_INLINE",
    "copy_path",
    "exists",
    "fork_path",
    "head",
    "parsed_path",
    "tail_rows",
]
