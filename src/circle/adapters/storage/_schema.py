"""The circle.sqlite schema as SQLModel tables (its single source), and how a file gets to it.

Tables: ``sessions``, ``checkpoints`` (append-only: rows are inserted, never updated or deleted),
``branches`` (a name and its head per session), ``labels`` and ``trusted_folders``. The schema
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


METADATA = _Row.metadata


def create_statements() -> Iterator[str]:
    """The DDL that ``METADATA.create_all`` would run on SQLite, each with ``IF NOT EXISTS``."""
    dialect = sqlite.dialect()
    for table in METADATA.sorted_tables:
        yield str(CreateTable(table, if_not_exists=True).compile(dialect=dialect)).strip()
        for index in sorted(table.indexes, key=lambda index: str(index.name)):
            yield str(CreateIndex(index, if_not_exists=True).compile(dialect=dialect)).strip()


def migrate(connection: sqlite3.Connection, version: int) -> None:
    """Bring a store from ``version`` (0: a new file) to ``SCHEMA_VERSION``, in the caller's transaction.

    Tables and indexes that exist already are kept (another opener, or an interrupted first run).
    """
    if version < 1:
        for statement in create_statements():
            connection.execute(statement)
    # a version 2 adds its step here, `if version < 2:`, after the tables above describe it
    connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


__all__ = [
    "METADATA",
    "BranchRow",
    "CheckpointRow",
    "LabelRow",
    "SessionRow",
    "TrustedFolderRow",
    "create_statements",
    "migrate",
]
