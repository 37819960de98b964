"""SessionStore and TrustList on SQLite, in WAL mode so several processes share the file.

Each ``append`` is one ``BEGIN IMMEDIATE`` transaction (insert the checkpoint, move the branch
head, bump the session), committed before it returns. Checkpoint rows are only ever inserted.
The file, its folder and the tables are made on first use; nothing happens at import or in
``__init__``. The SQL is fast and local, so the ``async`` methods run it inline; parsing the
messages of a long history is not, so it runs on a thread (:data:`PARSED_INLINE`), and a session
opens by its :meth:`~SqliteSessionStore.tail`, walking its path by key and parsing only the tail.

The schema is defined with sqlmodel (:mod:`._schema`), but this path runs hand-written statements
(:mod:`._sql`) on the stdlib ``sqlite3``: sqlmodel is imported only to create or migrate a file.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import uuid4

from circle.application.ports.session_store import HistoryTail, SessionInfo, SessionState
from circle.domain.checkpoints import MAIN_BRANCH, Branch, Checkpoint, Label
from circle.domain.errors import StorageError
from circle.domain.messages import Message, Usage

from . import _sql as sql
from ._database import Database
from ._paths import PARSED_INLINE, copy_path, exists, fork_path, head, parsed_path, spent_rows, tail_rows
from ._rows import bulk_parsing, session_infos, to_checkpoint
from .session_lock import lost_lease_error
from .session_state import read_state, write_state
from .tail_ahead import Summed, summed, walked

Clock = Callable[[], float]


def _require_session(connection: sqlite3.Connection, session_id: str) -> None:
    if not exists(connection, sql.SESSION_EXISTS, session_id=session_id):
        raise StorageError(f"no session {session_id}")


class SqliteSessionStore:
    """The session store in one SQLite file (usually ``circle.sqlite`` in the data folder).

    Args:
        path: the database file; its folder is created on first use.
        clock: seconds since the epoch, for ``created_at`` and ``updated_at``.
    """

    def __init__(self, path: Path, *, clock: Clock = time.time) -> None:
        self._db = Database(path)
        self._clock = clock
        self._fences: dict[str, int] = {}

    @property
    def database(self) -> Database:
        """The store's connection, shared with a ``SqliteSessionLease`` on the same file."""
        return self._db

    def fenced_token(self, session_id: str) -> int | None:
        """The lease token this store writes ``session_id`` under, or None when it is not fenced."""
        return self._fences.get(session_id)

    def _fenced_state(self, connection: sqlite3.Connection, session_id: str, branch: str) -> tuple[Any, ...]:
        """The session's append state on ``branch``; StorageError for an unknown session, and
        SessionBusyError when this store's lease token is no longer the session's."""
        state: tuple[Any, ...] | None = connection.execute(
            sql.APPEND_STATE, {"session_id": session_id, "branch": branch}
        ).fetchone()
        if state is None:
            raise StorageError(f"no session {session_id}")
        held = self._fences.get(session_id)
        if held is not None and state[3] != held:
            lease = connection.execute(sql.LEASE, {"session_id": session_id}).fetchone()
            raise lost_lease_error(session_id, lease)
        return state

    def fence(self, session_id: str, token: int | None) -> None:
        """From now on, append to the session only while its lease's token is ``token`` (None: always).

        The lease adapter calls this on acquiring and releasing; the check runs inside each append's
        transaction, so a holder whose lease another Circle took over writes nothing.
        """
        if token is None:
            self._fences.pop(session_id, None)
        else:
            self._fences[session_id] = token

    async def create_session(
        self, *, workspace: str, session_id: str | None = None, title: str | None = None
    ) -> SessionInfo:
        """Start an empty session. Raises StorageError when ``session_id`` is taken."""
        session_id = session_id or uuid4().hex
        now = self._clock()
        with self._db.writing() as connection:
            if exists(connection, sql.SESSION_EXISTS, session_id=session_id):
                raise StorageError(f"session {session_id} already exists")
            connection.execute(
                sql.INSERT_SESSION,
                {
                    "id": session_id,
                    "workspace": workspace,
                    "title": title,
                    "created_at": now,
                    "updated_at": now,
                    "name": None,
                    "forked_from": None,
                    "forked_at": None,
                },
            )
        return SessionInfo(id=session_id, workspace=workspace, title=title, created_at=now, updated_at=now)

    async def get_session(self, session_id: str) -> SessionInfo | None:
        with self._db.reading() as connection:
            rows = connection.execute(sql.GET_SESSION, {"session_id": session_id}).fetchall()
        found = session_infos(rows)
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
        return session_infos(rows)

    async def append(self, session_id: str, message: Message, *, branch: str = MAIN_BRANCH) -> Checkpoint:
        """Store ``message`` as the child of the branch's head and move the head to it.

        A branch that does not exist yet is created, and the message becomes a new root.
        Raises StorageError for an unknown session, and SessionBusyError (writing nothing) when
        this store was fenced to a lease token that is no longer the session's.
        """
        checkpoint_id = uuid4().hex
        now = self._clock()
        message_json = message.model_dump_json()
        with self._db.writing() as connection:
            state = self._fenced_state(connection, session_id, branch)
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
            _, head_id = head(connection, session_id, branch)
            if head_id is None:
                return []
            (stored,) = connection.execute(sql.CHECKPOINT_COUNT, {"session_id": session_id}).fetchone()
        if stored > PARSED_INLINE:  # a long session is read and parsed apart: the loop goes on drawing
            return await asyncio.to_thread(self._read_path, session_id, branch)
        return self._read_path(session_id, branch)

    def _read_path(self, session_id: str, branch: str) -> list[Checkpoint]:
        """The branch's path read and parsed (its head read again: a message may have come since)."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            _, head_id = head(connection, session_id, branch)
            if head_id is None:
                return []
            rows = connection.execute(sql.CHECKPOINT_ROWS, {"session_id": session_id}).fetchall()
        return parsed_path(session_id, branch, rows, head_id)

    async def tail(self, session_id: str, *, branch: str = MAIN_BRANCH, count: int) -> HistoryTail:
        """The last ``count`` checkpoints of the branch's history and how many come before them:
        the path is walked by key (or was, ahead: :mod:`.tail_ahead`) and only the tail's messages
        are read and parsed."""
        ahead = await walked(self._db.path, session_id)
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            _, head_id = head(connection, session_id, branch)
            if head_id is None:
                return HistoryTail(checkpoints=(), earlier=0)
            found = ahead.get((head_id, count))
            rows, length, spent = tail_rows(
                connection, session_id, branch=branch, head_id=head_id, count=count, walked=found
            )
        checkpoints = tuple(to_checkpoint(session_id, row) for row in rows)
        return HistoryTail(checkpoints=checkpoints, earlier=length - len(checkpoints), spent=spent)

    async def checkpoints(self, session_id: str) -> list[Checkpoint]:
        """Every checkpoint of the session, on all branches, in ``seq`` order."""
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            rows = connection.execute(sql.CHECKPOINT_ROWS_IN_ORDER, {"session_id": session_id}).fetchall()
        with bulk_parsing():
            return [to_checkpoint(session_id, row) for row in rows]

    async def spent(self, session_id: str) -> tuple[tuple[str | None, Usage], ...]:
        """What every call the session stored used, by model: summed in SQL, on a thread."""
        ahead = await summed(self._db.path, session_id)  # summed ahead beside the tail, if it was
        return await asyncio.to_thread(self._read_spent, session_id, ahead)

    def _read_spent(self, session_id: str, ahead: Summed | None) -> tuple[tuple[str | None, Usage], ...]:
        with self._db.reading() as connection:
            _require_session(connection, session_id)
            return spent_rows(connection, session_id, ahead=ahead)

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
            if head(connection, session_id, name)[0]:
                raise StorageError(f"branch {name!r} of session {session_id} already exists")
            if head_id is not None and not exists(
                connection, sql.CHECKPOINT_IN_SESSION, checkpoint_id=head_id, session_id=session_id
            ):
                raise StorageError(f"no checkpoint {head_id} in session {session_id}")
            connection.execute(
                sql.INSERT_BRANCH, {"session_id": session_id, "name": name, "head_id": head_id}
            )
        return Branch(session_id=session_id, name=name, head_id=head_id)

    async def move_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        """Move the branch's head to ``head_id``; StorageError for an unknown branch or checkpoint,
        SessionBusyError (moving nothing) when the store's lease token is no longer the session's."""
        with self._db.writing() as connection:
            self._fenced_state(connection, session_id, name)
            if not head(connection, session_id, name)[0]:
                raise StorageError(f"no branch {name!r} in session {session_id}")
            if head_id is not None and not exists(
                connection, sql.CHECKPOINT_IN_SESSION, checkpoint_id=head_id, session_id=session_id
            ):
                raise StorageError(f"no checkpoint {head_id} in session {session_id}")
            connection.execute(sql.MOVE_HEAD, {"session_id": session_id, "name": name, "head_id": head_id})
        return Branch(session_id=session_id, name=name, head_id=head_id)

    async def add_label(self, checkpoint_id: str, text: str) -> Label:
        """Name a checkpoint for people (again is a no-op). Raises StorageError for an unknown one."""
        with self._db.writing() as connection:
            if not exists(connection, sql.CHECKPOINT_EXISTS, checkpoint_id=checkpoint_id):
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

    async def set_name(self, session_id: str, name: str | None) -> None:
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            connection.execute(sql.SET_NAME, {"session_id": session_id, "name": name})

    async def state(self, session_id: str) -> SessionState:
        with self._db.reading() as connection:
            return read_state(connection, session_id)

    async def set_state(self, session_id: str, state: SessionState) -> None:
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            write_state(connection, session_id, state)

    async def fork(
        self,
        session_id: str,
        *,
        at_checkpoint: str | None,
        new_session_id: str | None = None,
        title: str | None = None,
    ) -> SessionInfo:
        """A new session whose main branch is a copy of the path to ``at_checkpoint``, in one transaction.

        The messages are copied as stored (the same JSON, the same ``created_at``) under new ids;
        the labels on the path come along, and the thinking level kept. The source is only read.
        """
        new_id = new_session_id or uuid4().hex
        now = self._clock()
        with self._db.writing() as connection:
            found = session_infos(connection.execute(sql.GET_SESSION, {"session_id": session_id}).fetchall())
            if not found:
                raise StorageError(f"no session {session_id}")
            if exists(connection, sql.SESSION_EXISTS, session_id=new_id):
                raise StorageError(f"session {new_id} already exists")
            path = fork_path(connection, session_id, at_checkpoint)
            forked_at = path[-1][0] if path else None
            source = found[0]
            connection.execute(
                sql.INSERT_SESSION,
                {
                    "id": new_id,
                    "workspace": source.workspace,
                    "title": title if title is not None else source.title,
                    "created_at": now,
                    "updated_at": now,
                    "name": None,
                    "forked_from": session_id,
                    "forked_at": forked_at,
                },
            )
            copies = copy_path(connection, path, new_id)
            new_ids = dict(zip((row[0] for row in path), copies, strict=True))
            for checkpoint_id, text in connection.execute(sql.LABELS, {"session_id": session_id}).fetchall():
                if checkpoint_id in new_ids:
                    connection.execute(sql.ADD_LABEL, {"checkpoint_id": new_ids[checkpoint_id], "text": text})
            if (thinking := read_state(connection, session_id).thinking) is not None:
                write_state(connection, new_id, SessionState(thinking=thinking))
            connection.execute(sql.TOUCH_SESSION, {"session_id": new_id, "now": now})
            info = session_infos(connection.execute(sql.GET_SESSION, {"session_id": new_id}).fetchall())
        return info[0]

    async def delete_session(self, session_id: str) -> None:
        """Remove the session, its checkpoints, branches, labels and lease, in one transaction."""
        with self._db.writing() as connection:
            _require_session(connection, session_id)
            for table in _tables_beside_the_schema(connection):
                connection.execute(
                    f'DELETE FROM "{table}" WHERE session_id = :session_id', {"session_id": session_id}
                )
            for name in sql.DELETIONS:
                connection.execute(sql.STATEMENTS[name], {"session_id": session_id})
        self._fences.pop(session_id, None)

    async def aclose(self) -> None:
        """Close the connection; later calls raise StorageError."""
        self._db.close()


def _tables_beside_the_schema(connection: sqlite3.Connection) -> list[str]:
    """Tables other modules add to the file (compactions, the rewind journal) with a ``session_id``:
    a deleted session's rows go from them too, first, as they may refer to its checkpoints."""
    rows = connection.execute(
        "SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p"
        " WHERE m.type = 'table' AND p.name = 'session_id' ORDER BY m.name"
    ).fetchall()
    return [name for (name,) in rows if name not in sql.TABLES]


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
            return any(exists(connection, sql.IS_TRUSTED, path=candidate) for candidate in candidates)

    async def aclose(self) -> None:
        """Close the connection; later calls raise StorageError."""
        self._db.close()


__all__ = ["SqliteSessionStore", "SqliteTrustList"]
