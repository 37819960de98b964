"""SessionStore and TrustList on SQLite, in WAL mode so several processes share the file.

Each ``append`` is one ``BEGIN IMMEDIATE`` transaction (insert the checkpoint, move the branch
head, bump the session), committed before it returns. Checkpoint rows are only ever inserted.
The file, its folder and the tables are made on first use; nothing happens at import or in
``__init__``. The SQL is fast and local, so the ``async`` methods run it inline.

The schema is defined with sqlmodel (:mod:`._schema`), but this path runs hand-written statements
(:mod:`._sql`) on the stdlib ``sqlite3``: sqlmodel is imported only to create or migrate a file.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from uuid import uuid4

from pydantic import ValidationError

from circle.application.ports.session_store import SessionInfo
from circle.domain.checkpoints import MAIN_BRANCH, Branch, Checkpoint, Label, path_to
from circle.domain.errors import StorageError
from circle.domain.messages import Message

from . import _sql as sql
from ._database import Database

Clock = Callable[[], float]
_CheckpointTuple = tuple[str, str | None, int, str, float]  # id, parent_id, seq, message_json, created_at


def _to_checkpoint(session_id: str, row: _CheckpointTuple) -> Checkpoint:
    checkpoint_id, parent_id, seq, message_json, created_at = row
    try:
        message = Message.model_validate_json(message_json)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise StorageError(
            f"checkpoint {checkpoint_id} of session {session_id} cannot be read"
            f" (written by a newer Circle?): {where}: {first['msg']}"
        ) from error
    return Checkpoint(
        id=checkpoint_id,
        session_id=session_id,
        parent_id=parent_id,
        seq=seq,
        message=message,
        created_at=created_at,
    )


class _LazyCheckpoints(Mapping[str, Checkpoint]):
    """Checkpoint rows by id, each message parsed only when ``path_to`` reaches it."""

    def __init__(self, session_id: str, rows: Sequence[_CheckpointTuple]) -> None:
        self._session_id = session_id
        self._rows = {row[0]: row for row in rows}

    def __getitem__(self, checkpoint_id: str) -> Checkpoint:
        return _to_checkpoint(self._session_id, self._rows[checkpoint_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def _found(connection: sqlite3.Connection, statement: str, **params: str) -> bool:
    return connection.execute(statement, params).fetchone() is not None


def _require_session(connection: sqlite3.Connection, session_id: str) -> None:
    if not _found(connection, sql.SESSION_EXISTS, session_id=session_id):
        raise StorageError(f"no session {session_id}")


def _head(connection: sqlite3.Connection, session_id: str, branch: str) -> tuple[bool, str | None]:
    """Whether the branch exists, and its head."""
    row = connection.execute(sql.BRANCH_HEAD, {"session_id": session_id, "name": branch}).fetchone()
    return (False, None) if row is None else (True, row[0])


def _session_infos(rows: list[tuple[str, str, str | None, float, float, int]]) -> list[SessionInfo]:
    return [
        SessionInfo(
            id=session_id,
            workspace=workspace,
            title=title,
            created_at=created_at,
            updated_at=updated_at,
            message_count=int(message_count),
        )
        for session_id, workspace, title, created_at, updated_at, message_count in rows
    ]


class SqliteSessionStore:
    """The session store in one SQLite file (usually ``circle.sqlite`` in the data folder).

    Args:
        path: the database file; its folder is created on first use.
        clock: seconds since the epoch, for ``created_at`` and ``updated_at``.
    """

    def __init__(self, path: Path, *, clock: Clock = time.time) -> None:
        self._db = Database(path)
        self._clock = clock

    async def create_session(
        self, *, workspace: str, session_id: str | None = None, title: str | None = None
    ) -> SessionInfo:
        """Start an empty session. Raises StorageError when ``session_id`` is taken."""
        session_id = session_id or uuid4().hex
        now = self._clock()
        with self._db.writing() as connection:
            if _found(connection, sql.SESSION_EXISTS, session_id=session_id):
                raise StorageError(f"session {session_id} already exists")
            connection.execute(
                sql.INSERT_SESSION,
                {
                    "id": session_id,
                    "workspace": workspace,
                    "title": title,
                    "created_at": now,
                    "updated_at": now,
                },
            )
        return SessionInfo(id=session_id, workspace=workspace, title=title, created_at=now, updated_at=now)

    async def get_session(self, session_id: str) -> SessionInfo | None:
        with self._db.reading() as connection:
            rows = connection.execute(sql.GET_SESSION, {"session_id": session_id}).fetchall()
        found = _session_infos(rows)
        return found[0] if found else None

    async def list_sessions(self, *, workspace: str | None = None, limit: int = 50) -> list[SessionInfo]:
        """Sessions, the most recently updated first, with their message counts."""
        with self._db.reading() as connection:
            if workspace is None:
                cursor = connection.execute(sql.LIST_SESSIONS, {"limit": limit})
            else:
                cursor = connection.execute(
                    sql.LIST_WORKSPACE_SESSIONS, {"workspace": workspace, "limit": limit}
                )
            rows = cursor.fetchall()
        return _session_infos(rows)

    async def append(self, session_id: str, message: Message, *, branch: str = MAIN_BRANCH) -> Checkpoint:
        """Store ``message`` as the child of the branch's head and move the head to it.

        A branch that does not exist yet is created, and the message becomes a new root.
        Raises StorageError for an unknown session.
        """
        checkpoint_id = uuid4().hex
        now = self._clock()
        message_json = message.model_dump_json()
        with self._db.writing() as connection:
            state = connection.execute(
                sql.APPEND_STATE, {"session_id": session_id, "branch": branch}
            ).fetchone()
            if state is None:
                raise StorageError(f"no session {session_id}")
            parent_id: str | None = state[1]
            seq = int(state[2] or 0) + 1
            connection.execute(
                sql.INSERT_CHECKPOINT,
                {
                    "id": checkpoint_id,
                    "session_id": session_id,
                    "parent_id": parent_id,
                    "seq": seq,
                    "role": message.role,
                    "message_json": message_json,
                    "created_at": now,
                },
            )
            connection.execute(
                sql.MOVE_HEAD, {"session_id": session_id, "name": branch, "head_id": checkpoint_id}
            )
            connection.execute(sql.TOUCH_SESSION, {"session_id": session_id, "now": now})
        return Checkpoint(
            id=checkpoint_id,
            session_id=session_id,
            parent_id=parent_id,
            seq=seq,
            message=message,
            created_at=now,
        )

    async def history(self, session_id: str, *, branch: str = MAIN_BRANCH) -> list[Checkpoint]:
        """The checkpoints from the root to the branch's head, oldest first ([] for no messages)."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            _, head_id = _head(connection, session_id, branch)
            if head_id is None:
                return []
            rows = connection.execute(sql.CHECKPOINT_ROWS, {"session_id": session_id}).fetchall()
        try:
            return path_to(_LazyCheckpoints(session_id, rows), head_id)
        except ValueError as error:
            raise StorageError(f"branch {branch!r} of session {session_id} is broken: {error}") from error

    async def checkpoints(self, session_id: str) -> list[Checkpoint]:
        """Every checkpoint of the session, on all branches, in ``seq`` order."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = connection.execute(sql.CHECKPOINT_ROWS_IN_ORDER, {"session_id": session_id}).fetchall()
        return [_to_checkpoint(session_id, row) for row in rows]

    async def branches(self, session_id: str) -> list[Branch]:
        """The session's branches by name."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = connection.execute(sql.BRANCHES, {"session_id": session_id}).fetchall()
        return [Branch(session_id=session_id, name=name, head_id=head_id) for name, head_id in rows]

    async def create_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        """Name a new branch whose head is ``head_id`` (the fork point), or an empty one for None.

        Raises StorageError for an unknown session or checkpoint, or a name already in use.
        """
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            if _head(connection, session_id, name)[0]:
                raise StorageError(f"branch {name!r} of session {session_id} already exists")
            if head_id is not None and not _found(
                connection, sql.CHECKPOINT_IN_SESSION, checkpoint_id=head_id, session_id=session_id
            ):
                raise StorageError(f"no checkpoint {head_id} in session {session_id}")
            connection.execute(
                sql.INSERT_BRANCH, {"session_id": session_id, "name": name, "head_id": head_id}
            )
        return Branch(session_id=session_id, name=name, head_id=head_id)

    async def add_label(self, checkpoint_id: str, text: str) -> Label:
        """Name a checkpoint for people (again is a no-op). Raises StorageError for an unknown one."""
        with self._db.writing() as connection:
            if not _found(connection, sql.CHECKPOINT_EXISTS, checkpoint_id=checkpoint_id):
                raise StorageError(f"no checkpoint {checkpoint_id}")
            connection.execute(sql.ADD_LABEL, {"checkpoint_id": checkpoint_id, "text": text})
        return Label(checkpoint_id=checkpoint_id, text=text)

    async def labels(self, session_id: str) -> list[Label]:
        """The labels of the session's checkpoints, in checkpoint order, then by text."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = connection.execute(sql.LABELS, {"session_id": session_id}).fetchall()
        return [Label(checkpoint_id=checkpoint_id, text=text) for checkpoint_id, text in rows]

    async def set_title(self, session_id: str, title: str) -> None:
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            connection.execute(sql.SET_TITLE, {"session_id": session_id, "title": title})

    async def aclose(self) -> None:
        """Close the connection; later calls raise StorageError."""
        self._db.close()


def _trust_key(folder: str) -> Path:
    """The absolute, resolved form of a folder, as the trust list stores it."""
    return Path(folder).expanduser().resolve()


class SqliteTrustList:
    """Trusted folders in a SQLite file (the session store's is fine); a folder covers those below it.

    Args:
        path: the database file.
        clock: seconds since the epoch, for ``trusted_at``.
    """

    def __init__(self, path: Path, *, clock: Clock = time.time) -> None:
        self._db = Database(path)
        self._clock = clock

    async def trust(self, folder: str) -> None:
        """Trust the folder (resolved) and everything below it."""
        key = str(_trust_key(folder))
        now = self._clock()
        with self._db.writing() as connection:
            connection.execute(sql.TRUST, {"path": key, "now": now})

    async def is_trusted(self, folder: str) -> bool:
        """True when the folder or one of the folders above it was trusted."""
        resolved = _trust_key(folder)
        candidates = [str(resolved), *(str(parent) for parent in resolved.parents)]
        with self._db.reading() as connection:
            return any(_found(connection, sql.IS_TRUSTED, path=candidate) for candidate in candidates)

    async def aclose(self) -> None:
        """Close the connection; later calls raise StorageError."""
        self._db.close()


__all__ = ["SqliteSessionStore", "SqliteTrustList"]
