"""The FileJournal contract, run against the in-memory fake and SQLite (circle.sqlite + blobs) alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from circle._testing.journal import InMemoryFileJournal
from circle.adapters.storage.file_journal import SqliteFileJournal
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.application.ports.file_journal import FileJournal, Receipt, content_digest
from circle.domain.errors import StorageError

Journal = InMemoryFileJournal | SqliteFileJournal


@pytest.fixture(params=["in-memory", "sqlite"])
async def journal(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Journal]:
    made: Journal = (
        InMemoryFileJournal()
        if request.param == "in-memory"
        else SqliteFileJournal(tmp_path / "circle.sqlite", blobs=tmp_path / "blobs")
    )
    port: FileJournal = made
    yield made
    await port.aclose()


async def test_a_blob_comes_back_by_its_digest(journal: Journal) -> None:
    digest = await journal.put_blob(b"hello\n")
    assert digest == content_digest(b"hello\n")
    assert await journal.put_blob(b"hello\n") == digest
    assert await journal.get_blob(digest) == b"hello\n"
    assert await journal.get_blob(await journal.put_blob(b"")) == b""


async def test_a_missing_blob_is_a_storage_error(journal: Journal) -> None:
    with pytest.raises(StorageError, match="missing"):
        await journal.get_blob(content_digest(b"never kept"))


async def test_turns_are_numbered_per_session_and_listed_newest_first(journal: Journal) -> None:
    await journal.record("s1", "t-a", Receipt("/w/a", None, "h1"), label="first", at=10.0)
    await journal.record("s1", "t-b", Receipt("/w/b", "h0", None, "command"), label="second", at=20.0)
    await journal.record("s2", "t-c", Receipt("/w/c", "h0", "h1"), label="other", at=30.0)
    turns = await journal.turns("s1")
    assert [(t.number, t.turn_id, t.label, t.created_at) for t in turns] == [
        (2, "t-b", "second", 20.0),
        (1, "t-a", "first", 10.0),
    ]
    assert turns[0].receipts == (Receipt("/w/b", "h0", None, "command"),)
    assert [t.number for t in await journal.turns("s2")] == [1]
    assert await journal.turns("nobody") == []


async def test_a_file_changed_twice_in_a_turn_keeps_its_first_before_and_last_after(journal: Journal) -> None:
    await journal.record("s", "t", Receipt("/w/a", "h0", "h1"))
    await journal.record("s", "t", Receipt("/w/b", None, "h5"))
    await journal.record("s", "t", Receipt("/w/a", "h1", "h2", "command"))
    (turn,) = await journal.turns("s")
    assert [(r.path, r.before, r.after) for r in turn.receipts] == [
        ("/w/a", "h0", "h2"),
        ("/w/b", None, "h5"),
    ]


async def test_a_change_undone_in_the_same_turn_leaves_no_receipt(journal: Journal) -> None:
    await journal.record("s", "t", Receipt("/w/a", None, "h1"))
    await journal.record("s", "t", Receipt("/w/a", "h1", None))
    await journal.record("s", "t", Receipt("/w/same", "h1", "h1"))
    assert await journal.turns("s") == []


async def test_a_restored_turn_is_marked(journal: Journal) -> None:
    await journal.record("s", "t", Receipt("/w/a", "h0", "h1"))
    await journal.mark_restored("s", 1, at=99.0)
    (turn,) = await journal.turns("s")
    assert turn.restored_at == 99.0
    await journal.mark_restored("s", 1, at=None)
    (turn,) = await journal.turns("s")
    assert turn.restored_at is None


async def test_the_sqlite_journal_outlives_its_process_and_shares_the_session_store(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store = SqliteSessionStore(path)
    session = await store.create_session(workspace="/w")
    first = SqliteFileJournal(path, blobs=tmp_path / "blobs")
    digest = await first.put_blob(b"before")
    await first.record(session.id, "t", Receipt("/w/a", digest, None), label="go", at=1.0)
    await first.aclose()
    again = SqliteFileJournal(path, blobs=tmp_path / "blobs")
    (turn,) = await again.turns(session.id)
    assert turn.receipts == (Receipt("/w/a", digest, None),)
    assert await again.get_blob(digest) == b"before"
    await again.aclose()
    assert [s.id for s in await store.list_sessions()] == [session.id]
    await store.aclose()


async def test_a_damaged_blob_is_reported_missing(tmp_path: Path) -> None:
    journal = SqliteFileJournal(tmp_path / "circle.sqlite", blobs=tmp_path / "blobs")
    digest = await journal.put_blob(b"content")
    (tmp_path / "blobs" / digest[:2] / digest[2:]).write_bytes(b"tampered")
    with pytest.raises(StorageError, match="damaged"):
        await journal.get_blob(digest)
    await journal.aclose()
