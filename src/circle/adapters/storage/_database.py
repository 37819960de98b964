"""Opening circle.sqlite on the stdlib ``sqlite3``, its transactions, and where its errors are translated.

The hot path never imports sqlmodel or sqlalchemy: a file already at :data:`SCHEMA_VERSION`
(``PRAGMA user_version``) is opened and used with plain ``sqlite3``. Only a new file, or one an
older Circle wrote, loads :mod:`._schema` (the SQLModel tables, the single source of the schema)
to create or migrate it: the first run on a machine pays that import, later runs do not.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from circle.adapters._shared.disk_full import disk_full_message, is_disk_full
from circle.adapters._shared.private_files import private_file, private_folder, tighten_file
from circle.domain.errors import StorageError

from ._wal_sync import Sync, WalSyncer, sync_file, syncer_for

SCHEMA_VERSION = 2
MEMORY = ":memory:"

PRAGMAS = (
    "PRAGMA busy_timeout=5000",  # first, so that switching to WAL waits for other openers
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",  # a commit survives a crash at once, a power cut once synced (_wal_sync)
    "PRAGMA foreign_keys=ON",
)


def storage_error(error: BaseException, path: Path, *, doing: str) -> StorageError:
    """The one-line StorageError for a SQLite or OS error met while ``doing``."""
    reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
    if is_disk_full(error, path):
        return StorageError(disk_full_message(path.parent, doing=f"{doing} its session store ({path.name})"))
    if isinstance(error, sqlite3.DatabaseError) and "not a database" in reason:
        return StorageError(f"cannot open the session store at {path}: {reason} (is it a Circle store?)")
    return StorageError(f"cannot {doing} the session store at {path}: {reason}")


@contextmanager
def translated(path: Path, *, doing: str) -> Iterator[None]:
    """Turn every storage exception raised inside into :class:`StorageError` (the one place)."""
    try:
        yield
    except (sqlite3.Error, OSError) as error:
        raise storage_error(error, path, doing=doing) from error


def _user_version(connection: sqlite3.Connection, path: Path) -> int:
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StorageError(
            f"the session store at {path} has schema version {version}, newer than this Circle"
            f" knows ({SCHEMA_VERSION}); update Circle"
        )
    return version


def _upgrade(connection: sqlite3.Connection, path: Path) -> None:
    """Create or migrate the tables, the one path that imports sqlmodel."""
    connection.execute("BEGIN IMMEDIATE")  # one opener creates; the others wait, then see it done
    try:
        version = _user_version(connection, path)
        if version < SCHEMA_VERSION:
            from ._schema import migrate  # sqlmodel loads here, and only here

            migrate(connection, version)
        connection.execute("COMMIT")
    finally:
        if connection.in_transaction:
            connection.execute("ROLLBACK")


def open_connection(path: Path) -> sqlite3.Connection:
    """Create the folder (0700) and the file (0600; it and its ``-wal`` and ``-shm`` files are
    tightened if an older Circle left them readable), open it with the store's pragmas, and bring
    its schema up to date.

    Raises:
        StorageError: the folder or the file cannot be created or opened, the file is not a
            database, or it was written by a newer Circle.
    """
    if str(path) != MEMORY:
        with translated(path, doing="create the folder of"):
            private_folder(path.parent, tighten=False)
        with translated(path, doing="create"):
            private_file(path)  # new -wal and -shm files take its mode
            for suffix in ("-wal", "-shm"):
                tighten_file(Path(f"{path}{suffix}"))
    with translated(path, doing="open"):
        # autocommit: every transaction is an explicit BEGIN; one store may be used from threads
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            for pragma in PRAGMAS:
                connection.execute(pragma)
            if _user_version(connection, path) != SCHEMA_VERSION:
                _upgrade(connection, path)
        except BaseException:
            connection.close()
            raise
    return connection


@dataclass(slots=True)
class _Shared:
    """The connection every open :class:`Database` of one file in this process uses."""

    connection: sqlite3.Connection
    users: int = 1


_shared: dict[str, _Shared] = {}
_locks: dict[str, threading.RLock] = {}
_registry_lock = threading.Lock()


def _lock_for(path: Path) -> threading.RLock:
    """The lock of every :class:`Database` of ``path`` in this process (each ``:memory:`` has its own)."""
    if str(path) == MEMORY:
        return threading.RLock()
    with _registry_lock:
        return _locks.setdefault(str(path), threading.RLock())


def _acquire(path: Path) -> sqlite3.Connection:
    """The file's shared connection, opened for its first user."""
    if str(path) == MEMORY:
        return open_connection(path)
    with _registry_lock:
        shared = _shared.get(str(path))
        if shared is not None:
            shared.users += 1
            return shared.connection
    connection = open_connection(path)  # outside the registry lock: opening may wait on busy_timeout
    with _registry_lock:
        shared = _shared.get(str(path))
        if shared is None:
            _shared[str(path)] = _Shared(connection)
            return connection
        shared.users += 1
    connection.close()  # another thread opened it meanwhile (the caller holds the file's lock, so rare)
    return shared.connection


def _release(path: Path, connection: sqlite3.Connection) -> None:
    """Give the connection back; its last user closes it."""
    with _registry_lock:
        shared = _shared.get(str(path))
        if shared is not None and shared.connection is connection:
            shared.users -= 1
            if shared.users:
                return
            del _shared[str(path)]
    connection.close()


class Database:
    """A store instance's way to its file: one connection per file in this process, opened on
    first use and shared by every store of that file (the session store, the call marks, the
    compactions, the journal), so each round's writes reuse one page cache instead of reloading
    another connection's after each of them; it closes when the last of them closes.

    ``:memory:`` has a connection of its own per instance, kept across calls, as a database per
    connection would be empty. A lock per file keeps each transaction whole when stores are used
    from several threads. Each commit to a file asks its :class:`~._wal_sync.WalSyncer` to sync
    the WAL, off the caller's thread.

    Args:
        path: the database file, or ``:memory:``.
        sync: what syncs the WAL file (tests pass one that records).
    """

    def __init__(self, path: Path, *, sync: Sync = sync_file) -> None:
        self.path = path
        self._syncer: WalSyncer | None = None if str(path) == MEMORY else syncer_for(path, sync=sync)
        self._connection: sqlite3.Connection | None = None
        self._closed = False
        self._lock = _lock_for(path)

    def _open(self) -> sqlite3.Connection:
        if self._closed:
            raise StorageError(f"the session store at {self.path} is closed")
        if self._connection is None:
            self._connection = _acquire(self.path)
        return self._connection

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every statement inside sees the same snapshot."""
        with self._lock, translated(self.path, doing="read"):
            connection = self._open()
            connection.execute("BEGIN")
            try:
                yield connection
            finally:
                if connection.in_transaction:
                    connection.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, committed on leaving; anything raised rolls it back.

        ``BEGIN IMMEDIATE`` takes the write lock first, so concurrent writers (other processes)
        wait on ``busy_timeout`` instead of reading a head or a seq that another is about to change.
        """
        with self._lock, translated(self.path, doing="write to"):
            connection = self._open()
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
                connection.execute("COMMIT")
                if self._syncer is not None:
                    self._syncer.request()
            finally:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")

    def write_one(self, statement: str, parameters: tuple[object, ...] | dict[str, object]) -> None:
        """Run one statement that writes, as a transaction of its own (SQLite's autocommit: it is
        committed as it ends, or changes nothing), then ask for the WAL's sync as a commit of
        :meth:`writing` does: the same transaction in one call instead of three (BEGIN, it, COMMIT)."""
        with self._lock, translated(self.path, doing="write to"):
            connection = self._open()
            connection.execute(statement, parameters)
            if self._syncer is not None:
                self._syncer.request()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._connection is not None:
                _release(self.path, self._connection)
                self._connection = None


__all__ = [
    "MEMORY",
    "PRAGMAS",
    "SCHEMA_VERSION",
    "Database",
    "open_connection",
    "storage_error",
    "translated",
]
