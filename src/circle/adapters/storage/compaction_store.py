"""CompactionStore on SQLite: a compaction is one ``BEGIN IMMEDIATE`` transaction on circle.sqlite.

The transaction inserts the new chain (the summary as a root, then the carried copies) into
``checkpoints``, moves the branch head, bumps the session and inserts the ``compactions`` row; a
kill or an error before ``COMMIT`` leaves the session as it was. Checkpoints are only inserted.

The ``compactions`` table is made by this module (``CREATE TABLE IF NOT EXISTS`` on first use),
not by :mod:`._schema`: it is an addition beside the versioned schema, so ``SCHEMA_VERSION`` does
not change and an older Circle opening the file simply ignores the table. Its keys cascade, so
deleting a session (which knows nothing of this table) removes its compactions too.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from uuid import uuid4

from circle.application.ports.compaction_store import CompactionRecord
from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint
from circle.domain.errors import StorageError
from circle.domain.messages import Message

from . import _sql as sql
from ._database import Database
from .session_lock import lost_lease_error

CREATE_COMPACTIONS = (
    "CREATE TABLE IF NOT EXISTS compactions ("
    " id TEXT PRIMARY KEY,"
    " session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
    " branch TEXT NOT NULL,"
    " summary_checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,"
    " previous_head_id TEXT REFERENCES checkpoints (id) ON DELETE CASCADE,"
    " replaced_from_seq INTEGER,"
    " replaced_to_seq INTEGER,"
    " replaced_json TEXT NOT NULL,"
    " history_file TEXT,"
    " created_at FLOAT NOT NULL)"
)
CREATE_COMPACTIONS_INDEX = (
    "CREATE INDEX IF NOT EXISTS ix_compactions_session ON compactions (session_id, created_at)"
)
INSERT_COMPACTION = (
    "INSERT INTO compactions (id, session_id, branch, summary_checkpoint_id, previous_head_id,"
    " replaced_from_seq, replaced_to_seq, replaced_json, history_file, created_at)"
    " VALUES (:id, :session_id, :branch, :summary_checkpoint_id, :previous_head_id,"
    " :replaced_from_seq, :replaced_to_seq, :replaced_json, :history_file, :created_at)"
)
COMPACTIONS = (
    "SELECT id, branch, summary_checkpoint_id, replaced_json, previous_head_id, history_file, created_at"
    " FROM compactions WHERE session_id = :session_id ORDER BY created_at, rowid"
)
REPLACED_SEQS = "SELECT min(seq), max(seq) FROM checkpoints WHERE session_id = ? AND id IN ({ids})"

Clock = Callable[[], float]


def _insert_chain(
    connection: sqlite3.Connection,
    session_id: str,
    messages: Sequence[Message],
    *,
    first_seq: int,
    now: float,
) -> list[Checkpoint]:
    chain: list[Checkpoint] = []
    parent: str | None = None
    for offset, message in enumerate(messages):
        checkpoint = Checkpoint(
            id=uuid4().hex,
            session_id=session_id,
            parent_id=parent,
            seq=first_seq + offset,
            message=message,
            created_at=now,
        )
        connection.execute(
            sql.INSERT_CHECKPOINT,
            {
                "id": checkpoint.id,
                "session_id": session_id,
                "parent_id": parent,
                "seq": checkpoint.seq,
                "role": message.role,
                "message_json": message.model_dump_json(),
                "created_at": now,
            },
        )
        chain.append(checkpoint)
        parent = checkpoint.id
    return chain


def _insert_record(connection: sqlite3.Connection, record: CompactionRecord) -> None:
    ids = record.replaced_ids
    low, high = (None, None)
    if ids:
        placeholders = ",".join("?" for _ in ids)
        row = connection.execute(REPLACED_SEQS.format(ids=placeholders), (record.session_id, *ids)).fetchone()
        low, high = row[0], row[1]
    connection.execute(
        INSERT_COMPACTION,
        {
            "id": record.id,
            "session_id": record.session_id,
            "branch": record.branch,
            "summary_checkpoint_id": record.summary_checkpoint_id,
            "previous_head_id": record.previous_head_id,
            "replaced_from_seq": low,
            "replaced_to_seq": high,
            "replaced_json": json.dumps(list(ids)),
            "history_file": record.history_file,
            "created_at": record.created_at,
        },
    )


class SqliteCompactionStore:
    """Compactions in the session store's SQLite file (its own connection, the same file).

    Args:
        path: the database file (``circle.sqlite`` in the data folder).
        clock: seconds since the epoch, for ``created_at``.
        fences: the lease token a session is written under (the session store's
            ``fenced_token``): a commit checks it inside its transaction, as an append does, so a
            holder whose lease another Circle took over compacts nothing. None: no fencing.
    """

    def __init__(
        self,
        path: Path,
        *,
        clock: Clock = time.time,
        fences: Callable[[str], int | None] | None = None,
    ) -> None:
        self._db = Database(path)
        self._clock = clock
        self._fences = fences
        self._ready = False

    def _ensure_table(self, connection: sqlite3.Connection) -> None:
        """Make the table inside the caller's transaction (``_ready`` is set once that commits)."""
        if not self._ready:
            connection.execute(CREATE_COMPACTIONS)
            connection.execute(CREATE_COMPACTIONS_INDEX)

    async def commit(
        self,
        session_id: str,
        *,
        summary: Message,
        carried: Sequence[Message],
        replaced_ids: Sequence[str],
        previous_head_id: str | None,
        history_file: str | None = None,
        branch: str = MAIN_BRANCH,
    ) -> tuple[CompactionRecord, list[Checkpoint]]:
        """See :meth:`CompactionStore.commit`: all of it is one transaction."""
        now = self._clock()
        with self._db.writing() as connection:
            self._ensure_table(connection)
            state = connection.execute(
                sql.APPEND_STATE, {"session_id": session_id, "branch": branch}
            ).fetchone()
            if state is None:
                raise StorageError(f"no session {session_id}")
            held = self._fences(session_id) if self._fences is not None else None
            if held is not None and state[3] != held:
                lease = connection.execute(sql.LEASE, {"session_id": session_id}).fetchone()
                raise lost_lease_error(session_id, lease)
            if state[1] != previous_head_id:
                raise StorageError(f"branch {branch!r} of session {session_id} moved during the compaction")
            chain = _insert_chain(
                connection, session_id, [summary, *carried], first_seq=int(state[2] or 0) + 1, now=now
            )
            record = CompactionRecord(
                id=uuid4().hex,
                session_id=session_id,
                branch=branch,
                summary_checkpoint_id=chain[0].id,
                replaced_ids=tuple(replaced_ids),
                previous_head_id=previous_head_id,
                history_file=history_file,
                created_at=now,
            )
            _insert_record(connection, record)
            connection.execute(
                sql.MOVE_HEAD, {"session_id": session_id, "name": branch, "head_id": chain[-1].id}
            )
            connection.execute(sql.TOUCH_SESSION, {"session_id": session_id, "now": now})
        self._ready = True
        return record, chain

    async def compactions(self, session_id: str) -> list[CompactionRecord]:
        """The session's compactions, oldest first."""
        with self._db.writing() as connection:  # the table may have to be made
            self._ensure_table(connection)
            rows = connection.execute(COMPACTIONS, {"session_id": session_id}).fetchall()
        self._ready = True
        return [
            CompactionRecord(
                id=row[0],
                session_id=session_id,
                branch=row[1],
                summary_checkpoint_id=row[2],
                replaced_ids=tuple(json.loads(row[3])),
                previous_head_id=row[4],
                history_file=row[5],
                created_at=row[6],
            )
            for row in rows
        ]

    async def aclose(self) -> None:
        self._db.close()


__all__ = ["SqliteCompactionStore"]
