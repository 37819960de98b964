"""SessionStore and TrustList on SQLite (sqlmodel), in WAL mode so several processes share the file.

Each ``append`` is one ``BEGIN IMMEDIATE`` transaction (insert the checkpoint, move the branch
head, bump the session), committed before it returns. Checkpoint rows are only ever inserted.
The file, its folder and the tables are made on first use; nothing happens at import or in
``__init__``. The SQL is fast and local, so the ``async`` methods run it inline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from uuid import uuid4

from pydantic import ValidationError
from sqlalchemy import ColumnElement, Connection, func, insert, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col

from circle.application.ports.session_store import SessionInfo
from circle.domain.checkpoints import MAIN_BRANCH, Branch, Checkpoint, Label, path_to
from circle.domain.errors import StorageError
from circle.domain.messages import Message

from ._schema import BranchRow, CheckpointRow, Database, LabelRow, SessionRow, TrustedFolderRow, hot_sql

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


def _checkpoint_rows(connection: Connection, session_id: str, *, ordered: bool) -> list[_CheckpointTuple]:
    """The session's checkpoint rows as plain tuples (no ORM objects: 10,000 of them load fast)."""
    statement = hot_sql().checkpoint_rows
    if ordered:
        statement = statement.order_by(col(CheckpointRow.seq))
    return list(connection.execute(statement, {"session_id": session_id}))


def _has_session(connection: Connection, session_id: str) -> bool:
    statement = select(col(SessionRow.id)).where(col(SessionRow.id) == session_id)
    return connection.execute(statement).first() is not None


def _require_session(connection: Connection, session_id: str) -> None:
    if not _has_session(connection, session_id):
        raise StorageError(f"no session {session_id}")


def _head(connection: Connection, session_id: str, branch: str) -> tuple[bool, str | None]:
    """Whether the branch exists, and its head."""
    row = connection.execute(
        select(col(BranchRow.head_id)).where(
            col(BranchRow.session_id) == session_id, col(BranchRow.name) == branch
        )
    ).first()
    return (False, None) if row is None else (True, row[0])


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
            if _has_session(connection, session_id):
                raise StorageError(f"session {session_id} already exists")
            connection.execute(
                insert(SessionRow).values(
                    id=session_id, workspace=workspace, title=title, created_at=now, updated_at=now
                )
            )
            connection.commit()
        return SessionInfo(id=session_id, workspace=workspace, title=title, created_at=now, updated_at=now)

    async def get_session(self, session_id: str) -> SessionInfo | None:
        found = self._sessions(col(SessionRow.id) == session_id, limit=1)
        return found[0] if found else None

    async def list_sessions(self, *, workspace: str | None = None, limit: int = 50) -> list[SessionInfo]:
        """Sessions, the most recently updated first, with their message counts."""
        if workspace is None:
            return self._sessions(None, limit=limit)
        return self._sessions(col(SessionRow.workspace) == workspace, limit=limit)

    def _sessions(self, where: ColumnElement[bool] | None, *, limit: int) -> list[SessionInfo]:
        count = (
            select(func.count())
            .select_from(CheckpointRow)
            .where(col(CheckpointRow.session_id) == col(SessionRow.id))
            .scalar_subquery()
        )  # counted for the listed sessions only, on the (session_id, seq) index
        statement = (
            select(
                col(SessionRow.id),
                col(SessionRow.workspace),
                col(SessionRow.title),
                col(SessionRow.created_at),
                col(SessionRow.updated_at),
                count,
            )
            .order_by(
                col(SessionRow.updated_at).desc(),
                col(SessionRow.created_at).desc(),
                col(SessionRow.id).desc(),
            )
            .limit(limit)
        )
        if where is not None:
            statement = statement.where(where)
        with self._db.reading() as connection:
            rows = connection.execute(statement).all()
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

    async def append(self, session_id: str, message: Message, *, branch: str = MAIN_BRANCH) -> Checkpoint:
        """Store ``message`` as the child of the branch's head and move the head to it.

        A branch that does not exist yet is created, and the message becomes a new root.
        Raises StorageError for an unknown session.
        """
        sql = hot_sql()
        checkpoint_id = uuid4().hex
        now = self._clock()
        with self._db.writing() as connection:
            state = connection.execute(sql.append_state, {"session_id": session_id, "branch": branch}).first()
            if state is None:
                raise StorageError(f"no session {session_id}")
            parent_id: str | None = state[1]
            seq = int(state[2] or 0) + 1
            connection.execute(
                sql.insert_checkpoint,
                {
                    "id": checkpoint_id,
                    "session_id": session_id,
                    "parent_id": parent_id,
                    "seq": seq,
                    "role": message.role,
                    "message_json": message.model_dump_json(),
                    "created_at": now,
                },
            )
            connection.execute(
                sql.move_head, {"session_id": session_id, "name": branch, "head_id": checkpoint_id}
            )
            connection.execute(sql.touch_session, {"session_id": session_id, "now": now})
            connection.commit()
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
            rows = _checkpoint_rows(connection, session_id, ordered=False)
        try:
            return path_to(_LazyCheckpoints(session_id, rows), head_id)
        except ValueError as error:
            raise StorageError(f"branch {branch!r} of session {session_id} is broken: {error}") from error

    async def checkpoints(self, session_id: str) -> list[Checkpoint]:
        """Every checkpoint of the session, on all branches, in ``seq`` order."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = _checkpoint_rows(connection, session_id, ordered=True)
        return [_to_checkpoint(session_id, row) for row in rows]

    async def branches(self, session_id: str) -> list[Branch]:
        """The session's branches by name."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = connection.execute(
                select(col(BranchRow.name), col(BranchRow.head_id))
                .where(col(BranchRow.session_id) == session_id)
                .order_by(col(BranchRow.name))
            ).all()
        return [Branch(session_id=session_id, name=name, head_id=head_id) for name, head_id in rows]

    async def create_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        """Name a new branch whose head is ``head_id`` (the fork point), or an empty one for None.

        Raises StorageError for an unknown session or checkpoint, or a name already in use.
        """
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            if _head(connection, session_id, name)[0]:
                raise StorageError(f"branch {name!r} of session {session_id} already exists")
            if head_id is not None and not _has_checkpoint(connection, head_id, session_id=session_id):
                raise StorageError(f"no checkpoint {head_id} in session {session_id}")
            connection.execute(insert(BranchRow).values(session_id=session_id, name=name, head_id=head_id))
            connection.commit()
        return Branch(session_id=session_id, name=name, head_id=head_id)

    async def add_label(self, checkpoint_id: str, text: str) -> Label:
        """Name a checkpoint for people (again is a no-op). Raises StorageError for an unknown one."""
        with self._db.writing() as connection:
            if not _has_checkpoint(connection, checkpoint_id):
                raise StorageError(f"no checkpoint {checkpoint_id}")
            connection.execute(
                sqlite_insert(LabelRow)
                .values(checkpoint_id=checkpoint_id, text=text)
                .on_conflict_do_nothing()
            )
            connection.commit()
        return Label(checkpoint_id=checkpoint_id, text=text)

    async def labels(self, session_id: str) -> list[Label]:
        """The labels of the session's checkpoints, in checkpoint order, then by text."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = connection.execute(
                select(col(LabelRow.checkpoint_id), col(LabelRow.text))
                .join(CheckpointRow, col(CheckpointRow.id) == col(LabelRow.checkpoint_id))
                .where(col(CheckpointRow.session_id) == session_id)
                .order_by(col(CheckpointRow.seq), col(LabelRow.text))
            ).all()
        return [Label(checkpoint_id=checkpoint_id, text=text) for checkpoint_id, text in rows]

    async def set_title(self, session_id: str, title: str) -> None:
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            connection.execute(update(SessionRow).where(col(SessionRow.id) == session_id).values(title=title))
            connection.commit()

    async def aclose(self) -> None:
        """Close the engine; later calls raise StorageError."""
        self._db.close()


def _has_checkpoint(connection: Connection, checkpoint_id: str, *, session_id: str | None = None) -> bool:
    statement = select(col(CheckpointRow.id)).where(col(CheckpointRow.id) == checkpoint_id)
    if session_id is not None:
        statement = statement.where(col(CheckpointRow.session_id) == session_id)
    return connection.execute(statement).first() is not None


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
        with self._db.writing() as connection:
            connection.execute(
                sqlite_insert(TrustedFolderRow)
                .values(path=key, trusted_at=self._clock())
                .on_conflict_do_nothing()
            )
            connection.commit()

    async def is_trusted(self, folder: str) -> bool:
        """True when the folder or one of the folders above it was trusted."""
        resolved = _trust_key(folder)
        candidates = [str(resolved), *(str(parent) for parent in resolved.parents)]
        with self._db.reading() as connection:
            found = connection.execute(
                select(col(TrustedFolderRow.path)).where(col(TrustedFolderRow.path).in_(candidates)).limit(1)
            ).first()
        return found is not None

    async def aclose(self) -> None:
        """Close the engine; later calls raise StorageError."""
        self._db.close()


__all__ = ["SqliteSessionStore", "SqliteTrustList"]
