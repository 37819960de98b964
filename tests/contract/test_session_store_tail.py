"""SessionStore.tail, the read a long session opens with: the same assertions on the fake and on SQLite."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from circle._testing.store import InMemorySessionStore
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.application.ports.session_store import SessionStore
from circle.domain.checkpoints import MAIN_BRANCH
from circle.domain.errors import StorageError
from circle.domain.messages import Message, TextPart, Usage

Store = InMemorySessionStore | SqliteSessionStore


@pytest.fixture(params=["in-memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    made: Store = (
        InMemorySessionStore() if request.param == "in-memory" else SqliteSessionStore(tmp_path / "c.sqlite")
    )
    port: SessionStore = made  # both satisfy the port
    yield made
    await port.aclose()


async def _session(store: Store, count: int, *, session_id: str = "s1") -> list[str]:
    await store.create_session(workspace="/w", session_id=session_id)
    return [(await store.append(session_id, Message.user(f"m{i}"))).id for i in range(count)]


async def test_the_tail_is_the_end_of_the_history_and_counts_the_rest(store: Store) -> None:
    await _session(store, 10)

    tail = await store.tail("s1", count=3)

    assert tail.checkpoints == tuple((await store.history("s1"))[-3:])
    assert [cp.message.text for cp in tail.checkpoints] == ["m7", "m8", "m9"]
    assert tail.earlier == 7


async def test_a_tail_longer_than_the_history_is_all_of_it(store: Store) -> None:
    await _session(store, 4)

    tail = await store.tail("s1", count=60)

    assert (tail.checkpoints, tail.earlier) == (tuple(await store.history("s1")), 0)
    assert (await store.tail("s1", count=0)).earlier == 4


async def test_the_tail_follows_its_branch_not_the_newest_rows(store: Store) -> None:
    ids = await _session(store, 6)
    await store.create_branch("s1", "side", head_id=ids[2])
    await store.append("s1", Message.user("side 1"), branch="side")
    await store.append("s1", Message.user("main 6"))

    side = await store.tail("s1", branch="side", count=2)
    main = await store.tail("s1", branch=MAIN_BRANCH, count=2)

    assert ([cp.message.text for cp in side.checkpoints], side.earlier) == (["m2", "side 1"], 2)
    assert ([cp.message.text for cp in main.checkpoints], main.earlier) == (["m5", "main 6"], 5)


async def test_a_moved_head_moves_the_tail(store: Store) -> None:
    ids = await _session(store, 5)
    await store.move_branch("s1", MAIN_BRANCH, head_id=ids[1])

    tail = await store.tail("s1", count=5)

    assert ([cp.message.text for cp in tail.checkpoints], tail.earlier) == (["m0", "m1"], 0)
    await store.move_branch("s1", MAIN_BRANCH, head_id=None)
    assert await store.tail("s1", count=5) == type(tail)(checkpoints=(), earlier=0)


async def test_an_empty_or_unknown_session(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="empty")

    assert (await store.tail("empty", count=3)).checkpoints == ()
    with pytest.raises(StorageError, match="no session"):
        await store.tail("nope", count=3)


async def test_a_broken_path_is_a_storage_error_not_a_short_tail(tmp_path: Path) -> None:
    store = SqliteSessionStore(tmp_path / "c.sqlite")
    ids = await _session(store, 5)
    await store.aclose()
    with sqlite3.connect(tmp_path / "c.sqlite") as raw:  # a row lost from the middle of the path
        raw.execute("PRAGMA foreign_keys=OFF")
        raw.execute("DELETE FROM checkpoints WHERE id = ?", (ids[1],))
    reopened = SqliteSessionStore(tmp_path / "c.sqlite")
    try:
        with pytest.raises(StorageError, match="broken"):
            await reopened.tail("s1", count=2)
        with pytest.raises(StorageError, match="broken"):
            await reopened.history("s1")
    finally:
        await reopened.aclose()


async def test_the_tail_says_what_the_answers_before_it_used_by_model(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    for index, model in enumerate(["m-a", "m-b", "m-a", None, "m-b"]):
        await store.append("s1", Message.user(f"q{index}"))
        used = Usage(input=10 * (index + 1), output=index, cache_read=1, cache_write=2)
        await store.append(
            "s1", Message(role="assistant", parts=(TextPart(text="a"),), usage=used, model=model)
        )
    await store.append("s1", Message(role="assistant", parts=(TextPart(text="no usage"),), model="m-a"))

    tail = await store.tail("s1", count=3)  # the last turn and the answer without usage

    assert tail.spent == (
        (None, Usage(input=40, output=3, cache_read=1, cache_write=2)),
        ("m-a", Usage(input=40, output=2, cache_read=2, cache_write=4)),
        ("m-b", Usage(input=20, output=1, cache_read=1, cache_write=2)),
    )
    assert (await store.tail("s1", count=20)).spent == ()
