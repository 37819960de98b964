"""CallLog on circle.sqlite: one row per tool call that began, ``started`` (``asking`` while its
approval waits for the person, then ``finished`` when its result waited for other calls; see
:mod:`circle.domain.call_marks`).

Like the file journal, its table lives in the session store's file outside the versioned schema:
made with ``CREATE TABLE IF NOT EXISTS`` on first use, ignored by an older Circle. Rows of a
deleted session are left (they name nothing but call ids); they are never read without a session.

::

    call_marks  (session_id, call_id) -> state ('started', 'asking' or 'finished'), outcome, at
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from circle.domain.call_marks import MAX_OUTCOME_CHARS, CallMark, CallState

from ._database import Database

TABLE = """CREATE TABLE IF NOT EXISTS call_marks (
    session_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    state TEXT NOT NULL,
    outcome TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (session_id, call_id)
)"""

_MARK = (
    "INSERT INTO call_marks (session_id, call_id, state, outcome, at) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (session_id, call_id) DO UPDATE SET state = excluded.state,"
    " outcome = excluded.outcome, at = excluded.at"
)


class SqliteCallLog:
    """The marks in ``path`` (usually circle.sqlite).

    Args:
        path: the database file, shared with the session store.
        clock: seconds since the epoch, for each mark's time.
    """

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._db = Database(path)
        self._clock = clock
        self._ready = False

    async def started(self, session_id: str, call_id: str) -> None:
        self._mark(session_id, call_id, "started", "")

    async def asking(self, session_id: str, call_id: str) -> None:
        self._mark(session_id, call_id, "asking", "")

    async def finished(self, session_id: str, call_id: str, *, outcome: str) -> None:
        self._mark(session_id, call_id, "finished", outcome[:MAX_OUTCOME_CHARS])

    async def marks(self, session_id: str) -> dict[str, CallMark]:
        self._prepare()
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT call_id, state, outcome FROM call_marks WHERE session_id = ?", (session_id,)
            ).fetchall()
        return {call_id: CallMark(call_id, _state(state), outcome) for call_id, state, outcome in rows}

    async def aclose(self) -> None:
        self._db.close()

    def _mark(self, session_id: str, call_id: str, state: str, outcome: str) -> None:
        self._prepare()
        self._db.write_one(_MARK, (session_id, call_id, state, outcome, self._clock()))

    def _prepare(self) -> None:
        if self._ready:
            return
        with self._db.writing() as connection:
            connection.execute(TABLE)
        self._ready = True


def _state(stored: str) -> CallState:
    """A row's state (an unknown one, from a later Circle, reads as started: it may have run)."""
    return "finished" if stored == "finished" else "asking" if stored == "asking" else "started"


__all__ = ["TABLE", "SqliteCallLog"]
