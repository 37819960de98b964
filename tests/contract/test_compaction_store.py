"""The CompactionStore contract, on the fake and on SQLite; and what only SQLite promises (a kill)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from circle._testing.compaction import InMemoryCompactionStore
from circle.adapters.storage import compaction_store as sqlite_compactions
from circle.adapters.storage.compaction_store import SqliteCompactionStore
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.application.ports.compaction_store import CompactionStore
from circle.application.ports.session_store import SessionStore
from circle.domain.checkpoints import check_tree
from circle.domain.compaction import summary_message
from circle.domain.errors import StorageError
from circle.domain.messages import Message, TextPart, Usage
from circle.domain.spend import session_spent
from circle.testing import InMemorySessionStore

Stores = tuple[SessionStore, CompactionStore]


@pytest.fixture(params=["memory", "sqlite"])
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Stores]:
    if request.param == "memory":
        sessions = InMemorySessionStore()
        yield sessions, InMemoryCompactionStore(sessions)
        return
    path = tmp_path / "circle.sqlite"
    sqlite_sessions, sqlite_store = SqliteSessionStore(path), SqliteCompactionStore(path)
    yield sqlite_sessions, sqlite_store
    await sqlite_store.aclose()
    await sqlite_sessions.aclose()


async def seeded(sessions: SessionStore, count: int = 6) -> str:
    info = await sessions.create_session(workspace="/w")
    for i in range(count):
        await sessions.append(info.id, Message.user(f"m{i}"))
    return info.id


async def test_a_commit_makes_a_new_chain_the_branch_path_and_links_the_replaced(stores: Stores) -> None:
    sessions, compactions = stores
    session_id = await seeded(sessions)
    before = await sessions.history(session_id)
    record, chain = await compactions.commit(
        session_id,
        summary=Message.user("summary"),
        carried=[before[-1].message],
        replaced_ids=[cp.id for cp in before[:-1]],
        previous_head_id=before[-1].id,
        history_file="/data/h.md",
    )
    after = await sessions.history(session_id)
    assert [cp.message.text for cp in after] == ["summary", "m5"]
    assert [cp.id for cp in after] == [cp.id for cp in chain] and after[0].parent_id is None
    assert record.summary_checkpoint_id == after[0].id and record.previous_head_id == before[-1].id
    assert record.replaced_ids == tuple(cp.id for cp in before[:-1])
    every = await sessions.checkpoints(session_id)
    assert {cp.id for cp in before} <= {cp.id for cp in every}
    assert check_tree(every, await sessions.branches(session_id)) == []
    assert await compactions.compactions(session_id) == [record]
    await sessions.append(session_id, Message.user("next"))
    assert [cp.message.text for cp in await sessions.history(session_id)] == ["summary", "m5", "next"]


async def test_a_commit_refuses_when_the_head_moved(stores: Stores) -> None:
    sessions, compactions = stores
    session_id = await seeded(sessions)
    old_head = (await sessions.history(session_id))[-2].id
    with pytest.raises(StorageError, match="moved"):
        await compactions.commit(
            session_id, summary=Message.user("s"), carried=[], replaced_ids=[], previous_head_id=old_head
        )
    assert len(await sessions.history(session_id)) == 6
    assert await compactions.compactions(session_id) == []


async def test_a_commit_that_fails_part_way_changes_nothing(
    stores: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions, compactions = stores
    session_id = await seeded(sessions)
    before = await sessions.history(session_id)
    if isinstance(compactions, InMemoryCompactionStore):
        compactions.fail_after = 1
    else:

        def broken(*args: object) -> None:
            raise StorageError("the disk went away")

        monkeypatch.setattr(sqlite_compactions, "_insert_record", broken)
    with pytest.raises(StorageError):
        await compactions.commit(
            session_id,
            summary=Message.user("s"),
            carried=[cp.message for cp in before[-2:]],
            replaced_ids=[cp.id for cp in before[:-2]],
            previous_head_id=before[-1].id,
        )
    assert await sessions.history(session_id) == before
    assert len(await sessions.checkpoints(session_id)) == 6
    assert await compactions.compactions(session_id) == []


CHILD = """
import asyncio, sys, time
from pathlib import Path
import circle.adapters.storage.compaction_store as compaction_store
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.domain.messages import Message

def stall(connection, record):
    print("staged", flush=True)
    time.sleep(60)

compaction_store._insert_record = stall

async def main() -> None:
    path = Path(sys.argv[1])
    history = await SqliteSessionStore(path).history(sys.argv[2])
    await compaction_store.SqliteCompactionStore(path).commit(
        sys.argv[2],
        summary=Message.user("summary"),
        carried=[history[-1].message],
        replaced_ids=[cp.id for cp in history[:-1]],
        previous_head_id=history[-1].id,
    )

asyncio.run(main())
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
async def test_a_compaction_killed_before_its_commit_leaves_the_session_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    sessions = SqliteSessionStore(path)
    session_id = await seeded(sessions)
    before = await sessions.history(session_id)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, str(path), session_id, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), 30)
        assert line.decode().strip() == "staged"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        await asyncio.wait_for(child.wait(), 10)
    assert await sessions.history(session_id) == before
    assert len(await sessions.checkpoints(session_id)) == 6
    await sessions.aclose()
    compactions = SqliteCompactionStore(path)
    assert await compactions.compactions(session_id) == []
    await compactions.aclose()


async def test_spent_counts_every_call_once_on_every_branch_with_the_summarys_own(stores: Stores) -> None:
    sessions, compactions = stores
    info = await sessions.create_session(workspace="/w")
    await sessions.append(info.id, Message.user("first"))

    def said(text: str, model: str | None, tokens: int) -> Message:
        return Message(role="assistant", parts=(TextPart(text=text),), model=model, usage=Usage(input=tokens))

    one = await sessions.append(info.id, said("one", "a", 100))
    await sessions.append(info.id, Message.user("second"))
    await sessions.append(info.id, said("two", "b", 20))
    await sessions.create_branch(info.id, "side", head_id=one.id)
    await sessions.append(info.id, Message.user("aside"), branch="side")
    await sessions.append(info.id, said("on the side", None, 3), branch="side")
    before = await sessions.history(info.id)
    summary = summary_message("all of it").model_copy(update={"usage": Usage(input=4_000), "model": "a"})
    await compactions.commit(
        info.id,
        summary=summary,
        carried=[before[-1].message],  # "two" again, with its usage: counted once
        replaced_ids=[cp.id for cp in before[:-1]],
        previous_head_id=before[-1].id,
    )
    spent = await sessions.spent(info.id)
    assert spent == ((None, Usage(input=3)), ("a", Usage(input=4_100)), ("b", Usage(input=20)))
    assert spent == session_spent(await sessions.checkpoints(info.id))
