"""A resumed session's tail read ahead on a thread (``tail_ahead``): the store's ``tail`` takes it
and gives what it reads itself, on every branch; a message stored since, another count, a store
that is not there or a session it does not have read as usual."""

from __future__ import annotations

from pathlib import Path

import pytest

from circle.adapters.storage import tail_ahead
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.domain.errors import StorageError
from circle.domain.messages import Message, TextPart, Usage


async def _stored(path: Path) -> tuple[SqliteSessionStore, list[str]]:
    """A session "s1" of 40 messages whose answers two models wrote, with a side branch."""
    store = SqliteSessionStore(path)
    await store.create_session(workspace="/w", session_id="s1")
    ids = []
    for index in range(40):
        if index % 2 == 0:
            message = Message.user(f"q{index}")
        else:
            usage = Usage(input=index, output=2, cache_read=1, cache_write=0)
            model = "a" if index % 4 == 1 else "b"
            message = Message(role="assistant", parts=(TextPart(text=f"a{index}"),), model=model, usage=usage)
        ids.append((await store.append("s1", message)).id)
    await store.create_branch("s1", "side", head_id=ids[20])
    await store.append("s1", Message.user("side"), branch="side")
    return store, ids


async def test_a_tail_read_ahead_is_the_tail_the_store_reads_on_every_branch(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store, _ = await _stored(path)
    wanted = {branch: await store.tail("s1", branch=branch, count=8) for branch in ("main", "side")}

    for branch in ("main", "side"):
        tail_ahead.read_ahead(path, "s1", count=8)
        assert await store.tail("s1", branch=branch, count=8) == wanted[branch]
        assert await tail_ahead.walked(path, "s1") == {}  # the tail took it
    assert wanted["main"].earlier == 32 and wanted["main"].spent  # what the answers above used
    await store.aclose()


async def test_the_read_ahead_is_taken_and_gone(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store, _ = await _stored(path)
    tail_ahead.read_ahead(path, "s1", count=8)

    assert set(await tail_ahead.walked(path, "s1")) == {(head, 8) for _, head in await _heads(path)}
    assert await tail_ahead.walked(path, "s1") == {}  # once: not kept
    await store.aclose()


async def _heads(path: Path) -> list[tuple[str, str]]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(path)) as connection:
        return connection.execute("SELECT name, head_id FROM branches WHERE session_id = 's1'").fetchall()


async def test_a_message_stored_since_or_another_count_reads_as_usual(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store, _ = await _stored(path)
    tail_ahead.read_ahead(path, "s1", count=8)
    await store.append("s1", Message.user("since"))

    tail = await store.tail("s1", count=8)

    assert tail.checkpoints[-1].message.text == "since" and tail.earlier == 33
    tail_ahead.read_ahead(path, "s1", count=8)
    assert await store.tail("s1", count=16) == await store.tail("s1", count=16)
    await store.aclose()


async def test_no_store_or_no_such_session_reads_as_usual(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    tail_ahead.read_ahead(path, "s1", count=8)  # no file: nothing is started, nothing is made
    assert not path.exists()
    store, _ = await _stored(path)
    tail_ahead.read_ahead(path, "nope", count=8)

    with pytest.raises(StorageError, match="no session nope"):
        await store.tail("nope", count=8)
    await store.aclose()


async def test_a_file_that_is_not_a_store_is_reported_by_the_store_not_the_read_ahead(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    path.write_bytes(b"not a database at all, not even close" * 20)
    tail_ahead.read_ahead(path, "s1", count=8)

    assert await tail_ahead.walked(path, "s1") == {}
    with pytest.raises(StorageError):
        await SqliteSessionStore(path).tail("s1", count=8)


async def test_the_sum_of_the_calls_read_ahead_is_the_stores_own_until_a_message_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from circle.adapters.storage import _sql

    path = tmp_path / "circle.sqlite"
    store, _ = await _stored(path)
    wanted = await store.spent("s1")
    assert wanted and sum(usage.input for _, usage in wanted) == sum(range(1, 40, 2))
    tail_ahead.read_ahead(path, "s1", count=8)
    ahead = await tail_ahead.summed(path, "s1")
    assert ahead is not None and ahead[0] == 41  # the checkpoints it was summed over
    assert await tail_ahead.summed(path, "s1") is None  # once: not kept

    tail_ahead.read_ahead(path, "s1", count=8)
    tail_ahead._summed[(str(path), "s1")].result(timeout=30)  # the thread has summed
    with monkeypatch.context() as patched:
        patched.setattr(_sql, "SESSION_SPENT", "SELECT no_such_column FROM checkpoints")
        assert await store.spent("s1") == wanted  # the sum made ahead: not summed again

    tail_ahead.read_ahead(path, "s1", count=8)
    usage = Usage(input=1000, output=1, cache_read=0, cache_write=0)
    await store.append(
        "s1", Message(role="assistant", parts=(TextPart(text="since"),), model="a", usage=usage)
    )
    again = dict(await store.spent("s1"))  # a call stored since the sum: summed again, counted
    assert again["a"].input == dict(wanted)["a"].input + 1000
    await store.aclose()
