"""The circle.sqlite schema, opening the engine, and the one place SQLite errors become StorageError.

Tables: ``sessions``, ``checkpoints`` (append-only: rows are inserted, never updated or deleted),
``branches`` (a name and its head per session), ``labels`` and ``trusted_folders``. The schema
version lives in ``PRAGMA user_version``; :data:`SCHEMA_VERSION` is the one this code writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import (
    URL,
    Connection,
    Engine,
    Insert,
    Select,
    Update,
    and_,
    bindparam,
    event,
    exc,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.orm import registry
from sqlalchemy.pool import QueuePool, StaticPool
from sqlmodel import Field, Index, SQLModel, col, create_engine

from circle.domain.errors import StorageError

SCHEMA_VERSION = 1
MEMORY = ":memory:"

_PRAGMAS = (
    "PRAGMA busy_timeout=5000",  # first, so that switching to WAL waits for other openers
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
)


class _Row(SQLModel, registry=registry()):
    """Base of the store's tables, on a metadata of their own (other adapters keep theirs)."""


class SessionRow(_Row, table=True):
    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_workspace_updated", "workspace", "updated_at"),)

    id: str = Field(primary_key=True)
    workspace: str
    title: str | None = None
    created_at: float
    updated_at: float


class CheckpointRow(_Row, table=True):
    __tablename__ = "checkpoints"
    __table_args__ = (Index("ix_checkpoints_session_seq", "session_id", "seq", unique=True),)

    id: str = Field(primary_key=True)
    session_id: str = Field(foreign_key="sessions.id")
    parent_id: str | None = Field(default=None, foreign_key="checkpoints.id")
    seq: int
    role: str
    message_json: str
    created_at: float


class BranchRow(_Row, table=True):
    __tablename__ = "branches"

    session_id: str = Field(primary_key=True, foreign_key="sessions.id")
    name: str = Field(primary_key=True)
    head_id: str | None = Field(default=None, foreign_key="checkpoints.id")


class LabelRow(_Row, table=True):
    __tablename__ = "labels"

    checkpoint_id: str = Field(primary_key=True, foreign_key="checkpoints.id")
    text: str = Field(primary_key=True)


class TrustedFolderRow(_Row, table=True):
    __tablename__ = "trusted_folders"

    path: str = Field(primary_key=True)
    trusted_at: float


def storage_error(error: BaseException, path: Path, *, doing: str) -> StorageError:
    """The one-line StorageError for a SQLite, SQLAlchemy or OS error met while ``doing``."""
    cause = error.orig if isinstance(error, exc.DBAPIError) and error.orig is not None else error
    reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    if isinstance(cause, sqlite3.DatabaseError) and "not a database" in reason:
        return StorageError(f"cannot open the session store at {path}: {reason} (is it a Circle store?)")
    return StorageError(f"cannot {doing} the session store at {path}: {reason}")


@contextmanager
def translated(path: Path, *, doing: str) -> Iterator[None]:
    """Turn every storage exception raised inside into :class:`StorageError`."""
    try:
        yield
    except (exc.SQLAlchemyError, sqlite3.Error, OSError) as error:
        raise storage_error(error, path, doing=doing) from error


def _set_pragmas(dbapi_connection: DBAPIConnection, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    try:
        for pragma in _PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def open_engine(path: Path) -> Engine:
    """Create the folder, the engine and the tables of a store at ``path`` (``:memory:`` works too).

    Raises:
        StorageError: the folder or the file cannot be created or opened, the file is not a
            database, or it was written by a newer Circle.
    """
    in_memory = str(path) == MEMORY
    if not in_memory:
        with translated(path, doing="create the folder of"):
            path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        URL.create("sqlite", database=str(path)),
        connect_args={"check_same_thread": False},
        # one connection for an in-memory database, or each would see a database of its own
        poolclass=StaticPool if in_memory else QueuePool,
    )
    event.listen(engine, "connect", _set_pragmas)
    try:
        with translated(path, doing="open"):
            _create_tables(engine, path)
    except StorageError:
        engine.dispose()
        raise
    return engine


def _create_tables(engine: Engine, path: Path) -> None:
    with engine.connect() as connection:
        version = connection.exec_driver_sql("PRAGMA user_version").scalar_one()
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StorageError(
                f"the session store at {path} has schema version {version}, newer than this Circle"
                f" knows ({SCHEMA_VERSION}); update Circle"
            )
        connection.exec_driver_sql("BEGIN IMMEDIATE")  # one opener creates; the others wait
        _Row.metadata.create_all(connection)  # checkfirst: tables another opener made are kept
        connection.exec_driver_sql(f"PRAGMA user_version={SCHEMA_VERSION}")
        connection.commit()


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A connection whose transaction holds the write lock from its first statement.

    ``BEGIN IMMEDIATE`` makes concurrent writers (other processes) wait on ``busy_timeout``
    instead of reading a head or a seq that another writer is about to change. The caller
    commits; leaving without a commit rolls back.
    """
    with engine.connect() as connection:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        yield connection


@dataclass(frozen=True, slots=True)
class HotSql:
    """The statements of the hot paths, built once: building them costs more than running them."""

    append_state: Select[*tuple[Any, ...]]  # session id, head id (or NULL), last seq (or NULL)
    insert_checkpoint: Insert
    move_head: Insert
    touch_session: Update
    checkpoint_rows: Select[str, str | None, int, str, float]


@cache
def hot_sql() -> HotSql:
    last_seq = (
        select(func.max(col(CheckpointRow.seq)))
        .where(col(CheckpointRow.session_id) == col(SessionRow.id))
        .scalar_subquery()
    )
    branch_of_session = and_(
        col(BranchRow.session_id) == col(SessionRow.id), col(BranchRow.name) == bindparam("branch")
    )
    upsert = sqlite_insert(BranchRow)
    return HotSql(
        append_state=select(col(SessionRow.id), col(BranchRow.head_id), last_seq)
        .select_from(SessionRow)
        .outerjoin(BranchRow, branch_of_session)
        .where(col(SessionRow.id) == bindparam("session_id")),
        insert_checkpoint=insert(CheckpointRow),
        move_head=upsert.on_conflict_do_update(
            index_elements=["session_id", "name"], set_={"head_id": upsert.excluded.head_id}
        ),
        touch_session=update(SessionRow)
        .where(col(SessionRow.id) == bindparam("session_id"))
        .values(updated_at=bindparam("now")),
        checkpoint_rows=select(
            col(CheckpointRow.id),
            col(CheckpointRow.parent_id),
            col(CheckpointRow.seq),
            col(CheckpointRow.message_json),
            col(CheckpointRow.created_at),
        ).where(col(CheckpointRow.session_id) == bindparam("session_id")),
    )


class Database:
    """The engine of one store instance, opened on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._engine: Engine | None = None
        self._closed = False

    def engine(self) -> Engine:
        if self._closed:
            raise StorageError(f"the session store at {self.path} is closed")
        if self._engine is None:
            self._engine = open_engine(self.path)
        return self._engine

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        with translated(self.path, doing="read"), self.engine().connect() as connection:
            yield connection

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction; the caller commits, anything raised rolls it back."""
        with translated(self.path, doing="write to"), write_transaction(self.engine()) as connection:
            yield connection

    def close(self) -> None:
        self._closed = True
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


__all__ = [
    "MEMORY",
    "SCHEMA_VERSION",
    "BranchRow",
    "CheckpointRow",
    "Database",
    "HotSql",
    "LabelRow",
    "SessionRow",
    "TrustedFolderRow",
    "hot_sql",
    "open_engine",
    "storage_error",
    "translated",
    "write_transaction",
]
