"""The CallLog contract, on the in-memory fake and on circle.sqlite alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from circle._testing.call_log import InMemoryCallLog
from circle.adapters.storage.call_log import SqliteCallLog
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.application.ports.call_log import CallLog
from circle.domain.call_marks import CallMark


@pytest.fixture(params=["in-memory", "sqlite"])
async def log(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CallLog]:
    made: CallLog = (
        InMemoryCallLog() if request.param == "in-memory" else SqliteCallLog(tmp_path / "c.sqlite")
    )
    yield made
    await made.aclose()


async def test_a_call_is_marked_started_then_finished_per_session(log: CallLog) -> None:
    await log.started("s1", "a")
    await log.started("s1", "b")
    await log.finished("s1", "a", outcome="exit code 0")
    await log.started("s2", "a")

    assert await log.marks("s1") == {
        "a": CallMark("a", "finished", "exit code 0"),
        "b": CallMark("b", "started"),
    }
    assert await log.marks("s2") == {"a": CallMark("a", "started")}
    assert await log.marks("nobody") == {}


async def test_marks_outlive_the_process_beside_the_sessions(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store = SqliteSessionStore(path)
    await store.create_session(workspace="/w", session_id="s1")
    first = SqliteCallLog(path)
    await first.started("s1", "a")
    await first.aclose()

    again = SqliteCallLog(path)
    assert await again.marks("s1") == {"a": CallMark("a", "started")}
    assert (await store.get_session("s1")) is not None  # the store's schema is untouched
    await again.aclose()
    await store.aclose()


async def test_stores_of_one_file_share_a_connection_and_each_closes_alone(tmp_path: Path) -> None:
    from circle.adapters.storage._database import Database
    from circle.domain.errors import StorageError
    from circle.domain.messages import Message

    path = tmp_path / "circle.sqlite"
    store, log = SqliteSessionStore(path), SqliteCallLog(path)
    await store.create_session(workspace="/w", session_id="s1")
    await log.started("s1", "a")
    other = Database(path)
    with other.reading() as one:
        pass
    with store.database.reading() as two:
        assert one is two
    other.close()
    await store.aclose()
    with pytest.raises(StorageError, match="closed"):
        await store.append("s1", Message.user("after close"))
    await log.finished("s1", "a", outcome="exit code 0")  # the log's use goes on
    assert await log.marks("s1") == {"a": CallMark("a", "finished", "exit code 0")}
    await log.aclose()
    again = SqliteSessionStore(path)  # the last one closed it: a new one opens it again
    assert [cp.message.text for cp in await again.history("s1")] == []
    await again.aclose()


async def test_a_call_asking_the_person_is_marked_asking_then_started_again(log: CallLog) -> None:
    await log.started("s1", "a")
    await log.asking("s1", "a")
    await log.asking("s1", "b")
    assert await log.marks("s1") == {"a": CallMark("a", "asking"), "b": CallMark("b", "asking")}
    await log.started("s1", "a")
    assert (await log.marks("s1"))["a"] == CallMark("a", "started")
