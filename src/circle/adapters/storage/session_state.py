"""Sessions' kept state (the thinking level last chosen, the tokens guessed) on circle.sqlite.

The ``session_state`` table lives in the session store's file but not in its versioned schema
(``_schema.py``, ``SCHEMA_VERSION``), as the journal's and the compactions' tables: it is made with
``CREATE TABLE IF NOT EXISTS`` on the first write, an older Circle opening the file ignores it, and
a file without it reads as no state kept. Deleting a session deletes its row with the other tables
beside the schema that have a ``session_id``.

::

    session_state  session_id -> thinking ("off" or a level; NULL: none kept), estimated
"""

from __future__ import annotations

import sqlite3

from circle.application.ports.session_store import SessionState

CREATE_TABLE = (
    "CREATE TABLE IF NOT EXISTS session_state ("
    "session_id VARCHAR NOT NULL PRIMARY KEY, thinking VARCHAR, estimated INTEGER NOT NULL DEFAULT 0)"
)
READ = "SELECT thinking, estimated FROM session_state WHERE session_id = :session_id"
WRITE = (
    "INSERT INTO session_state (session_id, thinking, estimated) VALUES (:session_id, :thinking, :estimated)"
    " ON CONFLICT (session_id) DO UPDATE SET thinking = excluded.thinking, estimated = excluded.estimated"
)


def read_state(connection: sqlite3.Connection, session_id: str) -> SessionState:
    """The state kept for ``session_id``; the default when none is (or the table is not made yet)."""
    try:
        row = connection.execute(READ, {"session_id": session_id}).fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return SessionState()
        raise
    return SessionState() if row is None else SessionState(thinking=row[0], estimated=int(row[1]))


def write_state(connection: sqlite3.Connection, session_id: str, state: SessionState) -> None:
    """Keep ``state`` for ``session_id``, inside the caller's transaction."""
    connection.execute(CREATE_TABLE)
    connection.execute(
        WRITE, {"session_id": session_id, "thinking": state.thinking, "estimated": state.estimated}
    )


__all__ = ["read_state", "write_state"]
