"""The SessionStore and TrustList contract, run against the in-memory fakes and SQLite alike."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from circle._testing.store import InMemorySessionStore, InMemoryTrustList
from circle.adapters.storage.sqlite_store import SqliteSessionStore, SqliteTrustList
from circle.application.ports.session_store import SessionState, SessionStore, TrustList
from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint, check_tree
from circle.domain.errors import StorageError
from circle.domain.messages import (
    ImagePart,
    Message,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
)

Store = InMemorySessionStore | SqliteSessionStore
Trust = InMemoryTrustList | SqliteTrustList


class TickingClock:
    """Each reading is one second after the last."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture(params=["in-memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    made: Store = (
        InMemorySessionStore(clock=TickingClock())
        if request.param == "in-memory"
        else SqliteSessionStore(tmp_path / "circle.sqlite", clock=TickingClock())
    )
    port: SessionStore = made  # both satisfy the port
    yield made
    await port.aclose()


@pytest.fixture(params=["in-memory", "sqlite"])
async def trust_list(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Trust]:
    made: Trust = (
        InMemoryTrustList(clock=TickingClock())
        if request.param == "in-memory"
        else SqliteTrustList(tmp_path / "circle.sqlite", clock=TickingClock())
    )
    port: TrustList = made  # both satisfy the port (which has no aclose yet)
    assert port is made
    yield made
    await made.aclose()


async def sound(store: Store, session_id: str) -> None:
    problems = check_tree(
        await store.checkpoints(session_id), await store.branches(session_id), await store.labels(session_id)
    )
    assert problems == []


async def test_a_new_session_is_found_and_empty(store: Store) -> None:
    info = await store.create_session(workspace="/work/a", session_id="s1", title="first")

    assert (info.id, info.workspace, info.title, info.message_count) == ("s1", "/work/a", "first", 0)
    assert info.created_at == info.updated_at
    assert await store.get_session("s1") == info
    assert await store.history("s1") == []
    assert await store.checkpoints("s1") == []
    assert await store.branches("s1") == []


async def test_session_ids_are_made_when_not_given(store: Store) -> None:
    first = await store.create_session(workspace="/w")
    second = await store.create_session(workspace="/w")

    assert first.id and second.id and first.id != second.id
    assert first.title is None


async def test_an_unknown_session_is_none(store: Store) -> None:
    assert await store.get_session("nope") is None


async def test_a_duplicate_session_id_is_refused(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")

    with pytest.raises(StorageError, match="session s1 already exists"):
        await store.create_session(workspace="/elsewhere", session_id="s1")
    info = await store.get_session("s1")
    assert info is not None and info.workspace == "/w"


async def test_sessions_list_newest_updated_first_with_message_counts(store: Store) -> None:
    for name, workspace in (("a", "/w1"), ("b", "/w2"), ("c", "/w1")):
        await store.create_session(workspace=workspace, session_id=name)
    await store.append("a", Message.user("one"))
    await store.append("a", Message.user("two"))

    listed = await store.list_sessions()

    assert [(s.id, s.message_count) for s in listed] == [("a", 2), ("c", 0), ("b", 0)]
    assert listed[0].updated_at > listed[0].created_at
    assert [s.id for s in await store.list_sessions(workspace="/w1")] == ["a", "c"]
    assert [s.id for s in await store.list_sessions(limit=1)] == ["a"]
    assert await store.list_sessions(workspace="/none") == []
    found = await store.get_session("a")
    assert found is not None and found.message_count == 2


async def test_append_chains_parent_to_child_with_increasing_seq(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")

    appended = [await store.append("s1", Message.user(f"message {i}")) for i in range(3)]

    assert [cp.parent_id for cp in appended] == [None, appended[0].id, appended[1].id]
    assert appended[0].seq < appended[1].seq < appended[2].seq
    assert len({cp.id for cp in appended}) == 3
    assert all(cp.session_id == "s1" for cp in appended)
    assert appended[0].created_at < appended[2].created_at
    assert [cp.message.text for cp in appended] == ["message 0", "message 1", "message 2"]
    info = await store.get_session("s1")
    assert info is not None and info.updated_at == appended[2].created_at
    await sound(store, "s1")


async def test_history_is_the_path_from_root_to_head_in_order(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    appended = [await store.append("s1", Message.user(f"message {i}")) for i in range(5)]

    history = await store.history("s1")

    assert history == appended
    assert await store.history("s1", branch=MAIN_BRANCH) == appended
    assert await store.checkpoints("s1") == appended


async def test_branches_show_the_head(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.append("s1", Message.user("one"))
    last = await store.append("s1", Message.user("two"))

    [branch] = await store.branches("s1")

    assert (branch.session_id, branch.name, branch.head_id) == ("s1", MAIN_BRANCH, last.id)


async def test_a_fork_grows_apart_and_leaves_main_alone(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    main = [await store.append("s1", Message.user(f"main {i}")) for i in range(3)]

    fork = await store.create_branch("s1", "retry", head_id=main[1].id)
    forked = await store.append("s1", Message.user("retry 2"), branch="retry")
    more = await store.append("s1", Message.user("main 3"))

    assert fork.head_id == main[1].id
    assert forked.parent_id == main[1].id and forked.seq > main[2].seq
    assert [cp.message.text for cp in await store.history("s1", branch="retry")] == [
        "main 0",
        "main 1",
        "retry 2",
    ]
    assert await store.history("s1") == [*main, more]
    assert {(b.name, b.head_id) for b in await store.branches("s1")} == {
        (MAIN_BRANCH, more.id),
        ("retry", forked.id),
    }
    assert len(await store.checkpoints("s1")) == 5
    await sound(store, "s1")


async def test_moving_a_head_back_and_forth_changes_the_history_and_keeps_every_checkpoint(
    store: Store,
) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    made = [await store.append("s1", Message.user(f"m{i}")) for i in range(3)]

    await store.move_branch("s1", MAIN_BRANCH, head_id=made[0].id)
    assert [cp.message.text for cp in await store.history("s1")] == ["m0"]
    assert len(await store.checkpoints("s1")) == 3
    await store.move_branch("s1", MAIN_BRANCH, head_id=None)
    assert await store.history("s1") == []
    await store.move_branch("s1", MAIN_BRANCH, head_id=made[2].id)
    assert await store.history("s1") == made
    with pytest.raises(StorageError, match="no branch"):
        await store.move_branch("s1", "nope", head_id=made[0].id)
    with pytest.raises(StorageError, match="no checkpoint"):
        await store.move_branch("s1", MAIN_BRANCH, head_id="missing")
    await sound(store, "s1")


async def test_appending_to_a_new_branch_starts_a_new_root(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.append("s1", Message.user("main"))

    first = await store.append("s1", Message.user("side"), branch="side")

    assert first.parent_id is None
    assert await store.history("s1", branch="side") == [first]
    assert await store.history("s1", branch="never") == []
    await sound(store, "s1")


async def test_bad_branches_are_refused(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.create_session(workspace="/w", session_id="s2")
    theirs = await store.append("s2", Message.user("other session"))
    await store.create_branch("s1", "empty", head_id=None)

    with pytest.raises(StorageError, match="already exists"):
        await store.create_branch("s1", "empty", head_id=None)
    with pytest.raises(StorageError, match="no checkpoint"):
        await store.create_branch("s1", "x", head_id="missing")
    with pytest.raises(StorageError, match="no checkpoint"):
        await store.create_branch("s1", "x", head_id=theirs.id)
    assert [b.name for b in await store.branches("s1")] == ["empty"]
    assert await store.history("s1", branch="empty") == []


async def test_sessions_keep_their_own_trees(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.create_session(workspace="/w", session_id="s2")
    one = await store.append("s1", Message.user("for s1"))
    two = await store.append("s2", Message.user("for s2"))

    assert await store.history("s1") == [one]
    assert await store.history("s2") == [two]
    assert two.parent_id is None
    await sound(store, "s1")
    await sound(store, "s2")


async def test_labels_name_checkpoints(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    first = await store.append("s1", Message.user("one"))
    second = await store.append("s1", Message.user("two"))

    await store.add_label(second.id, "good")
    await store.add_label(first.id, "start")
    await store.add_label(first.id, "start")

    assert [(label.checkpoint_id, label.text) for label in await store.labels("s1")] == [
        (first.id, "start"),
        (second.id, "good"),
    ]
    with pytest.raises(StorageError, match="no checkpoint"):
        await store.add_label("missing", "x")
    await sound(store, "s1")


async def test_the_title_can_be_set(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")

    await store.set_title("s1", "Fix the parser")

    info = await store.get_session("s1")
    assert info is not None and info.title == "Fix the parser"


async def test_a_session_keeps_its_state_until_deleted(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.create_session(workspace="/w", session_id="s2")
    assert await store.state("s1") == SessionState()  # none kept: the default

    await store.set_state("s1", SessionState(thinking="high", estimated=42))
    await store.set_state("s1", SessionState(thinking="off", estimated=50))

    assert await store.state("s1") == SessionState(thinking="off", estimated=50)
    assert await store.state("s2") == SessionState()
    with pytest.raises(StorageError, match="no session nope"):
        await store.set_state("nope", SessionState(thinking="low"))
    await store.delete_session("s1")
    assert await store.state("s1") == SessionState()


async def test_messages_come_back_whole(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    answer = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="hmm", signature="sig=="),
            TextPart(text="Let me look — ünïcode ✓"),
            ToolCallPart(id="call_1", name="read", arguments='{"path": "a.py"'),
        ),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(input=10, output=5, cache_read=2),
        model="m-1",
    )
    result = Message.tool_result(call_id="call_1", name="read", text="oops", is_error=True)
    image = Message(role="user", parts=(ImagePart(media_type="image/png", data="iVBORw0KGgo="),))

    for message in (answer, result, image):
        await store.append("s1", message)

    assert [cp.message for cp in await store.history("s1")] == [answer, result, image]


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.append("nope", Message.user("x")),
        lambda s: s.history("nope"),
        lambda s: s.checkpoints("nope"),
        lambda s: s.branches("nope"),
        lambda s: s.labels("nope"),
        lambda s: s.set_title("nope", "t"),
        lambda s: s.create_branch("nope", "b", head_id=None),
    ],
    ids=["append", "history", "checkpoints", "branches", "labels", "set_title", "create_branch"],
)
async def test_an_unknown_session_is_a_storage_error(
    store: Store, call: Callable[[Store], Awaitable[object]]
) -> None:
    with pytest.raises(StorageError, match="no session nope"):
        await call(store)


async def test_a_closed_store_refuses_work(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")

    await store.aclose()

    with pytest.raises(StorageError, match="closed"):
        await store.get_session("s1")


async def test_checkpoints_are_returned_as_domain_values(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")

    checkpoint = await store.append("s1", Message.user("hi"))

    assert isinstance(checkpoint, Checkpoint)
    assert isinstance((await store.history("s1"))[0], Checkpoint)


async def test_trust_covers_the_folder_and_below_but_not_siblings(trust_list: Trust, tmp_path: Path) -> None:
    await trust_list.trust(str(tmp_path / "a" / "b"))

    assert await trust_list.is_trusted(str(tmp_path / "a" / "b"))
    assert await trust_list.is_trusted(str(tmp_path / "a" / "b" / "c"))
    assert await trust_list.is_trusted(str(tmp_path / "a" / "b" / "c" / ".." / "d"))
    assert not await trust_list.is_trusted(str(tmp_path / "a" / "bc"))
    assert not await trust_list.is_trusted(str(tmp_path / "a"))
    assert not await trust_list.is_trusted(str(tmp_path / "a" / "b" / ".." / "x"))


async def test_trust_resolves_relative_folders(
    trust_list: Trust, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path)

    await trust_list.trust("project")
    await trust_list.trust("project")

    assert await trust_list.is_trusted(str(tmp_path / "project" / "src"))
    assert not await trust_list.is_trusted(str(tmp_path))


async def test_nothing_is_trusted_at_first(trust_list: Trust, tmp_path: Path) -> None:
    assert not await trust_list.is_trusted(str(tmp_path))
    assert not await trust_list.is_trusted("/")


async def test_a_fork_copies_the_path_to_its_checkpoint_into_a_new_session(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1", title="source")
    main = [await store.append("s1", Message.user(f"main {i}")) for i in range(3)]
    await store.add_label(main[0].id, "start")
    await store.add_label(main[2].id, "after the fork point")

    forked = await store.fork("s1", at_checkpoint=main[1].id, new_session_id="f1")

    assert (forked.id, forked.workspace, forked.title) == ("f1", "/w", "source")
    assert (forked.forked_from, forked.forked_at, forked.message_count) == ("s1", main[1].id, 2)
    copied = await store.history("f1")
    assert [cp.message for cp in copied] == [main[0].message, main[1].message]
    assert not {cp.id for cp in copied} & {cp.id for cp in main}
    assert all(cp.session_id == "f1" for cp in copied)
    assert [label.text for label in await store.labels("f1")] == ["start"]
    assert await store.history("s1") == main  # the source is left alone
    await sound(store, "f1")
    await sound(store, "s1")


async def test_a_fork_grows_on_its_own_and_forks_at_the_head_by_default(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    first = await store.append("s1", Message.user("one"))
    await store.append("s1", Message.user("two"))

    at_head = await store.fork("s1", at_checkpoint=None, title="whole")
    mine = await store.append(at_head.id, Message.user("three, forked"))

    assert at_head.title == "whole" and at_head.message_count == 2
    assert [cp.message.text for cp in await store.history(at_head.id)] == ["one", "two", "three, forked"]
    assert mine.seq == 3
    assert [cp.message.text for cp in await store.history("s1")] == ["one", "two"]
    again = await store.fork(at_head.id, at_checkpoint=(await store.history(at_head.id))[0].id)
    assert (again.forked_from, again.message_count) == (at_head.id, 1)
    assert (await store.history(again.id))[0].message == first.message


async def test_a_fork_keeps_the_thinking_level_the_source_was_left_at(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.append("s1", Message.user("one"))
    plain = await store.fork("s1", at_checkpoint=None)
    await store.set_state("s1", SessionState(thinking="low", estimated=42))

    forked = await store.fork("s1", at_checkpoint=None)

    assert await store.state(forked.id) == SessionState(thinking="low")  # the tokens guessed stay
    assert await store.state(plain.id) == SessionState()  # none kept: none comes along
    assert await store.state("s1") == SessionState(thinking="low", estimated=42)


async def test_a_bad_fork_is_refused_and_makes_nothing(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.create_session(workspace="/w", session_id="s2")
    theirs = await store.append("s2", Message.user("other"))

    with pytest.raises(StorageError, match="no session nope"):
        await store.fork("nope", at_checkpoint=None)
    with pytest.raises(StorageError, match="no checkpoint"):
        await store.fork("s1", at_checkpoint=theirs.id)
    with pytest.raises(StorageError, match="already exists"):
        await store.fork("s2", at_checkpoint=None, new_session_id="s1")
    assert sorted(s.id for s in await store.list_sessions()) == ["s1", "s2"]


async def test_a_session_is_named_and_its_size_is_its_stored_json(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    messages = [Message.user("hello"), Message.user("ünïcode ✓")]
    for message in messages:
        await store.append("s1", message)

    await store.set_name("s1", "parser fix")

    info = await store.get_session("s1")
    assert info is not None and info.name == "parser fix"
    assert info.size_bytes == sum(len(m.model_dump_json().encode()) for m in messages)
    [listed] = await store.list_sessions()
    assert (listed.name, listed.size_bytes) == ("parser fix", info.size_bytes)
    await store.set_name("s1", None)
    cleared = await store.get_session("s1")
    assert cleared is not None and cleared.name is None
    with pytest.raises(StorageError, match="no session nope"):
        await store.set_name("nope", "x")


async def test_deleting_a_session_removes_it_and_only_it(store: Store) -> None:
    await store.create_session(workspace="/w", session_id="s1")
    await store.create_session(workspace="/w", session_id="s2")
    ones = [await store.append("s1", Message.user(f"s1 {i}")) for i in range(3)]
    await store.create_branch("s1", "side", head_id=ones[0].id)
    await store.append("s1", Message.user("side"), branch="side")
    await store.add_label(ones[1].id, "mid")
    fork = await store.fork("s1", at_checkpoint=ones[1].id)
    two = await store.append("s2", Message.user("s2"))

    await store.delete_session("s1")

    assert await store.get_session("s1") is None
    assert sorted(s.id for s in await store.list_sessions()) == sorted(["s2", fork.id])
    assert await store.history("s2") == [two]
    assert len(await store.history(fork.id)) == 2  # a fork stands on its own
    with pytest.raises(StorageError, match="no session s1"):
        await store.history("s1")
    with pytest.raises(StorageError, match="no session s1"):
        await store.delete_session("s1")
    await store.create_session(workspace="/w", session_id="s1")  # the id is free again
    assert await store.history("s1") == []
