"""The circle.sqlite schema as SQLModel tables (its single source), and how a file gets to it.

Tables: ``sessions``, ``checkpoints`` (append-only: rows are inserted, never updated or deleted),
``branches`` (a name and its head per session), ``labels``, ``leases`` (who writes a session now)
and ``trusted_folders``. The schema
version lives in ``PRAGMA user_version``; :data:`._database.SCHEMA_VERSION` is the one this code
writes. Importing this module loads sqlmodel and sqlalchemy (a third of a second), so only
:mod:`._database` imports it, and only for a file that must be created or migrated; the hot
path runs the hand-written statements of :mod:`._sql`, which the contract tests hold to these
tables. A schema change edits the tables here, adds a step to :func:`migrate`, bumps
``SCHEMA_VERSION`` and updates :mod:`._sql`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from sqlalchemy import DDL, event
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import registry
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import Field, Index, SQLModel

from ._database import SCHEMA_VERSION


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
    name: str | None = None
    forked_from: str | None = None  # not a foreign key: deleting the source leaves the fork whole
    forked_at: str | None = None
    size_bytes: int = 0


class CheckpointRow(_Row, table=True):
    __tablename__ = "checkpoints"
    __table_args__ = (
        Index("ix_checkpoints_session_seq", "session_id", "seq", unique=True),
        Index("ix_checkpoints_parent", "parent_id"),  # deleting a session checks children by it
    )

    id: str = Field(primary_key=True)
    session_id: str = Field(foreign_key="sessions.id")
    parent_id: str | None = Field(default=None, foreign_key="checkpoints.id")
    seq: int
    role: str
    message_json: str
    created_at: float


class BranchRow(_Row, table=True):
    __tablename__ = "branches"
    __table_args__ = (Index("ix_branches_head", "head_id"),)  # deleting a session checks heads by it

    session_id: str = Field(primary_key=True, foreign_key="sessions.id")
    name: str = Field(primary_key=True)
    head_id: str | None = Field(default=None, foreign_key="checkpoints.id")


class LabelRow(_Row, table=True):
    __tablename__ = "labels"

    checkpoint_id: str = Field(primary_key=True, foreign_key="checkpoints.id")
    text: str = Field(primary_key=True)


class LeaseRow(_Row, table=True):
    """Who writes a session now (see ``session_lock``): kept after release, so tokens only grow."""

    __tablename__ = "leases"

    session_id: str = Field(primary_key=True)  # not a foreign key: a lease may precede its session
    owner: str
    pid: int
    host: str
    token: int
    acquired_at: float
    expires_at: float


class TrustedFolderRow(_Row, table=True):
    __tablename__ = "trusted_folders"

    path: str = Field(primary_key=True)
    trusted_at: float


METADATA = _Row.metadata

SIZE_TRIGGER = (
    "CREATE TRIGGER IF NOT EXISTS tr_checkpoints_size AFTER INSERT ON checkpoints BEGIN"
    " UPDATE sessions SET size_bytes = size_bytes + length(CAST(NEW.message_json AS BLOB))"
    " WHERE id = NEW.session_id; END"
)
"""Keeps ``sessions.size_bytes`` whatever module inserts a checkpoint (the store, compaction, import)."""
event.listen(METADATA.tables["checkpoints"], "after_create", DDL(SIZE_TRIGGER))  # type: ignore[no-untyped-call]


def create_statements() -> Iterator[str]:
    """The DDL that ``METADATA.create_all`` would run on SQLite, each with ``IF NOT EXISTS``."""
    dialect = sqlite.dialect()
    for table in METADATA.sorted_tables:
        yield str(CreateTable(table, if_not_exists=True).compile(dialect=dialect)).strip()
        for index in sorted(table.indexes, key=lambda index: str(index.name)):
            yield str(CreateIndex(index, if_not_exists=True).compile(dialect=dialect)).strip()
    yield SIZE_TRIGGER


_VERSION_2_COLUMNS = (
    "name VARCHAR",
    "forked_from VARCHAR",
    "forked_at VARCHAR",
    "size_bytes INTEGER NOT NULL DEFAULT 0",
)


def migrate(connection: sqlite3.Connection, version: int) -> None:
    """Bring a store from ``version`` (0: a new file) to ``SCHEMA_VERSION``, in the caller's transaction.

    Tables and indexes that exist already are kept (another opener, or an interrupted first run).
    """
    if version == 1:  # version 2: names, forks, sizes, leases, and indexes for deleting
        for column in _VERSION_2_COLUMNS:
            connection.execute(f"ALTER TABLE sessions ADD COLUMN {column}")
        connection.execute(
            "UPDATE sessions SET size_bytes = (SELECT coalesce(sum(length(CAST(c.message_json AS BLOB))), 0)"
            " FROM checkpoints AS c WHERE c.session_id = sessions.id)"
        )
    for statement in create_statements():  # every table and index this version has, if missing
        connection.execute(statement)
    connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


__all__ = [
    "METADATA",
    "SIZE_TRIGGER",
    "BranchRow",
    "CheckpointRow",
    "LabelRow",
    "LeaseRow",
    "SessionRow",
    "TrustedFolderRow",
    "create_statements",
    "migrate",
]
