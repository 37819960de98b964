"""A session is stored when its first message is: opening one and leaving leaves nothing."""

from __future__ import annotations

import pytest

from circle.domain.errors import StorageError
from circle.testing import answer

from ._harness import WORKSPACE, Harness


async def test_a_new_session_left_without_a_message_is_not_stored() -> None:
    harness = Harness()
    runtime = harness.runtime()
    session = await runtime.new_session()
    await session.conversation.set_name("draft")
    await runtime.aclose()
    assert harness.store.sessions == {} and harness.store.stored == {}


async def test_the_first_message_stores_the_session_with_its_title_and_name() -> None:
    harness = Harness()
    harness.model.add(answer("Hello."))
    runtime = harness.runtime()
    session = await runtime.new_session()
    await session.conversation.set_name("greeting")
    assert (await session.conversation.info()).name == "greeting"

    await session.prompt("say hello\nplease")

    [info] = await harness.store.list_sessions()
    assert (info.id, info.workspace, info.title, info.name) == (
        session.session_id,
        WORKSPACE,
        "say hello",
        "greeting",
    )
    assert info.message_count == 2


async def test_a_taken_session_id_is_refused_before_anything_runs() -> None:
    harness = Harness()
    await harness.store.create_session(workspace=WORKSPACE, session_id="s1")
    with pytest.raises(StorageError, match="s1 already exists"):
        await harness.runtime().new_session(session_id="s1")


async def test_an_unstored_session_has_no_checkpoints() -> None:
    session = await Harness().runtime().new_session()
    assert await session.conversation.checkpoints() == []
