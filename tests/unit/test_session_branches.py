"""A reopened session goes on where it went on last, or from any checkpoint on a new branch."""

from __future__ import annotations

import pytest

from circle._testing.store import InMemorySessionStore
from circle.application.session_branches import latest_branch, pick_branch
from circle.domain.errors import StorageError
from circle.domain.messages import Message


async def test_a_new_branch_starts_at_the_checkpoint_and_becomes_the_latest() -> None:
    store = InMemorySessionStore()
    await store.create_session(workspace="/w", session_id="s")
    first = await store.append("s", Message.user("one"))
    await store.append("s", Message.user("two"))
    assert await latest_branch(store, "s") == "main"

    name = await pick_branch(store, "s", at_checkpoint=first.id)
    await store.append("s", Message.user("three"), branch=name)

    assert name == "branch-1"
    assert await latest_branch(store, "s") == "branch-1"
    assert [cp.message.text for cp in await store.history("s", branch=name)] == ["one", "three"]
    assert await pick_branch(store, "s", at_checkpoint=first.id) == "branch-2"
    await store.append("s", Message.user("four"))  # main again: the newest head
    assert await latest_branch(store, "s") == "main"


async def test_a_branch_head_goes_on_along_that_branch() -> None:
    store = InMemorySessionStore()
    await store.create_session(workspace="/w", session_id="s")
    first = await store.append("s", Message.user("one"))
    main = await store.append("s", Message.user("two"))
    side = await pick_branch(store, "s", at_checkpoint=first.id)
    head = await store.append("s", Message.user("three"), branch=side)

    assert await pick_branch(store, "s", at_checkpoint=head.id) == side
    assert await pick_branch(store, "s", at_checkpoint=main.id) == "main"
    assert [b.name for b in await store.branches("s")] == ["branch-1", "main"]


async def test_an_unknown_checkpoint_is_refused_and_makes_no_branch() -> None:
    store = InMemorySessionStore()
    await store.create_session(workspace="/w", session_id="s")
    await store.append("s", Message.user("one"))

    with pytest.raises(StorageError, match="no checkpoint nope in session s"):
        await pick_branch(store, "s", at_checkpoint="nope")
    assert [b.name for b in await store.branches("s")] == ["main"]
