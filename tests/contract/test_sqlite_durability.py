"""How a commit reaches the disk: written to the WAL before it returns, synced on a thread after."""

from __future__ import annotations

import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from circle.adapters.storage import _wal_sync
from circle.adapters.storage._database import Database, open_connection
from circle.adapters.storage._wal_sync import sync_file


class BlockingSync:
    """A sync that records each call (the file, the thread) and waits until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls: list[tuple[Path, int]] = []
        self.started_at: list[float] = []

    def __call__(self, path: Path) -> None:
        self.started_at.append(time.monotonic())
        self.release.wait(10)
        self.calls.append((path, threading.get_ident()))


def wait_for(found: object, *, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not callable(found) or not found():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.005)


def _insert(db: Database, value: int) -> None:
    with db.writing() as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS t (v INTEGER)")
        connection.execute("INSERT INTO t VALUES (?)", (value,))


def test_a_commit_returns_before_its_wal_is_synced_which_happens_on_another_thread(tmp_path: Path) -> None:
    sync = BlockingSync()
    db = Database(tmp_path / "circle.sqlite", sync=sync)

    _insert(db, 1)  # returns although the sync is held

    with closing(open_connection(tmp_path / "circle.sqlite")) as other:
        assert other.execute("SELECT v FROM t").fetchall() == [(1,)]  # committed: another reader sees it
    assert sync.calls == []
    sync.release.set()
    wait_for(lambda: len(sync.calls) == 1)
    assert sync.calls[0][0] == tmp_path / "circle.sqlite-wal"
    assert sync.calls[0][1] != threading.get_ident()
    db.close()


def test_commits_made_while_a_sync_runs_are_covered_by_one_more_sync(tmp_path: Path) -> None:
    sync = BlockingSync()
    db = Database(tmp_path / "circle.sqlite", sync=sync)
    _insert(db, 1)
    wait_for(lambda: len(sync.started_at) == 1)

    for value in (2, 3, 4):
        _insert(db, value)
    committed = time.monotonic()
    sync.release.set()

    wait_for(lambda: len(sync.calls) == 2)
    time.sleep(0.05)
    assert len(sync.calls) == 2  # one sync for the three commits, started after the last of them
    assert sync.started_at[1] >= committed
    db.close()


def test_the_commits_right_behind_one_are_synced_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool round commits three times within about 3 ms: one sync, not three."""
    monkeypatch.setattr(_wal_sync, "GATHER_S", 0.3)  # wide enough for a loaded machine
    sync = BlockingSync()
    sync.release.set()
    db = Database(tmp_path / "circle.sqlite", sync=sync)
    asked = time.monotonic()
    for value in (1, 2, 3):
        _insert(db, value)
    wait_for(lambda: len(sync.calls) == 1)
    time.sleep(0.4)
    assert len(sync.calls) == 1
    assert sync.started_at[0] - asked >= 0.3
    db.close()


def test_sync_file_syncs_a_file_and_ignores_one_that_is_gone(tmp_path: Path) -> None:
    wal = tmp_path / "circle.sqlite-wal"
    wal.write_bytes(b"frames")

    sync_file(wal)
    sync_file(tmp_path / "gone-wal")

    assert wal.read_bytes() == b"frames"


def test_an_in_memory_database_syncs_nothing(tmp_path: Path) -> None:
    sync = BlockingSync()
    sync.release.set()
    db = Database(Path(":memory:"), sync=sync)

    _insert(db, 1)
    time.sleep(0.05)

    assert sync.calls == []
    db.close()


def test_one_statement_written_alone_is_committed_as_it_returns_and_synced_after(tmp_path: Path) -> None:
    sync = BlockingSync()
    db = Database(tmp_path / "circle.sqlite", sync=sync)
    _insert(db, 1)
    sync.release.set()
    wait_for(lambda: len(sync.calls) == 1)

    db.write_one("INSERT INTO t VALUES (?)", (2,))

    with closing(open_connection(tmp_path / "circle.sqlite")) as other:
        assert other.execute("SELECT v FROM t ORDER BY v").fetchall() == [(1,), (2,)]
    wait_for(lambda: len(sync.calls) == 2)
    db.close()
