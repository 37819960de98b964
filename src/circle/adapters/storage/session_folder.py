"""The folder a stored session works in, read without the store's message types.

``circle --session ID`` works in the session's own folder; the interface checks that before its
first frame, and :mod:`.sqlite_store` would load every message type (pydantic) to answer it.
"""

from __future__ import annotations

from pathlib import Path

from . import _sql as sql
from ._database import Database


def stored_workspace(path: Path, session_id: str) -> str | None:
    """The workspace of session ``session_id`` in the store at ``path``; None when it has none.

    Raises:
        StorageError: the store cannot be read.
    """
    database = Database(path)
    try:
        with database.reading() as connection:
            row = connection.execute(sql.SESSION_WORKSPACE, {"session_id": session_id}).fetchone()
    finally:
        database.close()
    return None if row is None else str(row[0])


__all__ = ["stored_workspace"]
