"""FileJournal on circle.sqlite (the receipts) and the data folder's blob store (the contents).

The journal's two tables live in the session store's file but are not part of its versioned schema
(``_schema.py``, ``SCHEMA_VERSION``): this module makes them itself with ``CREATE TABLE IF NOT
EXISTS`` the first time an instance writes or reads, so an older Circle opening the file ignores
them and a newer one finds them. Changing their shape needs a new table name (or a step here), not
a schema version. They hold no foreign key to ``sessions``: a journal entry outlives nothing, and
the session store stays free to move or export sessions without knowing of it.

::

    journal_turns    (session_id, number) -> turn_id, label, created_at, restored_at
    journal_entries  (session_id, number, path) -> seq, before, after, source
                     before/after: sha256 of the content, NULL when the file was absent
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from circle.adapters._shared.blobs import BlobStore
from circle.adapters._shared.disk_full import disk_full_message, is_disk_full
from circle.application.ports.file_journal import ChangeSource, JournalTurn, Receipt
from circle.domain.errors import StorageError

from ._database import Database

TABLES = (
    """CREATE TABLE IF NOT EXISTS journal_turns (
        session_id TEXT NOT NULL,
        number INTEGER NOT NULL,
        turn_id TEXT NOT NULL,
        label TEXT NOT NULL,
        created_at REAL NOT NULL,
        restored_at REAL,
        PRIMARY KEY (session_id, number),
        UNIQUE (session_id, turn_id)
    )""",
    """CREATE TABLE IF NOT EXISTS journal_entries (
        session_id TEXT NOT NULL,
        number INTEGER NOT NULL,
        path TEXT NOT NULL,
        seq INTEGER NOT NULL,
        before TEXT,
        after TEXT,
        source TEXT NOT NULL,
        PRIMARY KEY (session_id, number, path)
    )""",
)


class SqliteFileJournal:
    """The journal in ``path`` (usually circle.sqlite) with its blobs below ``blobs``.

    Args:
        path: the database file, shared with the session store.
        blobs: the blob folder (``<data>/blobs``), shared with the workspace snapshots.
    """

    def __init__(self, path: Path, *, blobs: Path) -> None:
        self._db = Database(path)
        self._blobs = BlobStore(blobs)
        self._ready = False

    async def put_blob(self, data: bytes) -> str:
        try:
            return await asyncio.to_thread(self._blobs.put, data)
        except OSError as exc:
            if is_disk_full(exc, self._blobs.root):
                doing = "keep a file's content for a rewind"
                raise StorageError(disk_full_message(self._blobs.root, doing=doing)) from exc
            raise StorageError(f"cannot keep a file's content in {self._blobs.root}: {exc}") from exc

    async def get_blob(self, digest: str) -> bytes:
        try:
            return await asyncio.to_thread(self._blobs.get, digest)
        except OSError as exc:
            raise StorageError(
                f"the content {digest[:12]} is missing from {self._blobs.root}: {exc}"
            ) from exc

    async def record(
        self, session_id: str, turn_id: str, receipt: Receipt, *, label: str = "", at: float = 0.0
    ) -> None:
        self._prepare()
        with self._db.writing() as connection:
            number = _turn_number(connection, session_id, turn_id, label=label, at=at)
            key = {"session_id": session_id, "number": number, "path": receipt.path}
            row = connection.execute(
                "SELECT before FROM journal_entries"
                " WHERE session_id = :session_id AND number = :number AND path = :path",
                key,
            ).fetchone()
            if row is None:
                if receipt.before == receipt.after:
                    return
                seq = connection.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM journal_entries"
                    " WHERE session_id = :session_id AND number = :number",
                    key,
                ).fetchone()[0]
                connection.execute(
                    "INSERT INTO journal_entries (session_id, number, path, seq, before, after, source)"
                    " VALUES (:session_id, :number, :path, :seq, :before, :after, :source)",
                    {
                        **key,
                        "seq": seq,
                        "before": receipt.before,
                        "after": receipt.after,
                        "source": receipt.source,
                    },
                )
            elif row[0] == receipt.after:
                connection.execute(
                    "DELETE FROM journal_entries"
                    " WHERE session_id = :session_id AND number = :number AND path = :path",
                    key,
                )
            else:
                connection.execute(
                    "UPDATE journal_entries SET after = :after"
                    " WHERE session_id = :session_id AND number = :number AND path = :path",
                    {**key, "after": receipt.after},
                )

    async def turns(self, session_id: str) -> list[JournalTurn]:
        self._prepare()
        with self._db.reading() as connection:
            turns = connection.execute(
                "SELECT number, turn_id, label, created_at, restored_at FROM journal_turns"
                " WHERE session_id = ? ORDER BY number DESC",
                (session_id,),
            ).fetchall()
            entries = connection.execute(
                "SELECT number, path, before, after, source FROM journal_entries"
                " WHERE session_id = ? ORDER BY number, seq",
                (session_id,),
            ).fetchall()
        receipts: dict[int, list[Receipt]] = {}
        for number, path, before, after, source in entries:
            kind: ChangeSource = "command" if source == "command" else "tool"
            receipts.setdefault(number, []).append(Receipt(path, before, after, kind))
        return [
            JournalTurn(
                session_id=session_id,
                turn_id=turn_id,
                number=number,
                label=label,
                created_at=created_at,
                receipts=tuple(receipts[number]),
                restored_at=restored_at,
            )
            for number, turn_id, label, created_at, restored_at in turns
            if receipts.get(number)
        ]

    async def mark_restored(self, session_id: str, number: int, *, at: float | None) -> None:
        self._prepare()
        with self._db.writing() as connection:
            connection.execute(
                "UPDATE journal_turns SET restored_at = ? WHERE session_id = ? AND number = ?",
                (at, session_id, number),
            )

    async def aclose(self) -> None:
        self._db.close()

    def _prepare(self) -> None:
        if self._ready:
            return
        with self._db.writing() as connection:
            for statement in TABLES:
                connection.execute(statement)
        self._ready = True


def _turn_number(
    connection: sqlite3.Connection, session_id: str, turn_id: str, *, label: str, at: float
) -> int:
    row = connection.execute(
        "SELECT number FROM journal_turns WHERE session_id = ? AND turn_id = ?", (session_id, turn_id)
    ).fetchone()
    if row is not None:
        return int(row[0])
    number = int(
        connection.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM journal_turns WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
    )
    connection.execute(
        "INSERT INTO journal_turns (session_id, number, turn_id, label, created_at) VALUES (?, ?, ?, ?, ?)",
        (session_id, number, turn_id, label, at),
    )
    return number


__all__ = ["TABLES", "SqliteFileJournal"]
