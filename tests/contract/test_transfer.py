"""Export and import over the SessionStore, run against the in-memory fake and SQLite alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from circle._testing.store import InMemorySessionStore
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.application.ports.session_store import SessionState
from circle.application.transfer import TransferStore, export_session, import_session, render
from circle.domain.checkpoints import Checkpoint
from circle.domain.errors import ConfigError, StorageError
from circle.domain.export import SessionArchive, comparable_jsonl, from_jsonl, to_jsonl
from circle.domain.messages import Message, StopReason, TextPart, ThinkingPart, ToolCallPart, Usage

Store = InMemorySessionStore | SqliteSessionStore


class TickingClock:
    def __init__(self) -> None:
        self.now = 1_000.0

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
    port: TransferStore = made  # both satisfy what the transfer service needs
    yield made
    await port.aclose()


def _answer_with_call() -> Message:
    return Message(
        role="assistant",
        parts=(
            ThinkingPart(text="look first", signature="s1g"),
            ToolCallPart(id="call_1", name="read_file", arguments='{"file_path": "a.txt"}'),
        ),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(input=12, output=3, cache_read=4),
        model="m-1",
        scope="fp",
    )


async def _session_with_branches(store: Store) -> str:
    """main: u1 a1 r1 a2; alt forks after a1; an empty branch; labels on main and alt."""
    info = await store.create_session(workspace="/w", title="a <title>")
    sid = info.id
    await store.append(sid, Message.user("read a.txt"))
    a1 = await store.append(sid, _answer_with_call())
    await store.append(sid, Message.tool_result(call_id="call_1", name="read_file", text="hello"))
    done = await store.append(sid, Message(role="assistant", parts=(TextPart(text="It says hello."),)))
    await store.create_branch(sid, "alt", head_id=a1.id)
    other = await store.append(
        sid, Message.tool_result(call_id="call_1", name="read_file", text="x"), branch="alt"
    )
    await store.create_branch(sid, "empty", head_id=None)
    await store.create_branch(sid, "at-fork", head_id=a1.id)
    await store.add_label(done.id, "answered")
    await store.add_label(other.id, "the other way")
    return sid


async def test_import_of_an_export_exports_the_same_jsonl(store: Store) -> None:
    original = to_jsonl(await export_session(store, await _session_with_branches(store)))
    imported = await import_session(store, from_jsonl(original))
    again = to_jsonl(await export_session(store, imported.id))
    assert comparable_jsonl(again) == comparable_jsonl(original)
    assert again != original  # a new session: new ids and clock readings
    assert imported.title == "a <title>" and imported.workspace == "/w"
    assert imported.message_count == 5


async def test_imported_history_follows_the_same_branches(store: Store) -> None:
    sid = await _session_with_branches(store)
    imported = await import_session(store, await export_session(store, sid), workspace="/elsewhere")
    assert imported.workspace == "/elsewhere"

    def texts(cps: list[Checkpoint]) -> list[str]:
        return [cp.message.model_dump_json() for cp in cps]

    for branch in ("main", "alt", "at-fork", "empty"):
        assert texts(await store.history(imported.id, branch=branch)) == texts(
            await store.history(sid, branch=branch)
        )
    assert {b.name for b in await store.branches(imported.id)} == {"main", "alt", "at-fork", "empty"}


async def test_an_import_keeps_the_thinking_level_the_export_was_left_at(store: Store) -> None:
    sid = await _session_with_branches(store)
    older = await import_session(store, from_jsonl(to_jsonl(await export_session(store, sid))))
    await store.set_state(sid, SessionState(thinking="low", estimated=7))

    imported = await import_session(store, from_jsonl(to_jsonl(await export_session(store, sid))))

    assert await store.state(imported.id) == SessionState(thinking="low")
    assert await store.state(older.id) == SessionState()  # an export with none kept imports as before


async def test_every_format_renders_a_stored_session(store: Store) -> None:
    archive = await export_session(store, await _session_with_branches(store))
    assert "It says hello." in render(archive, "md")
    assert "a &lt;title&gt;" in render(archive, "html")
    assert render(archive, "jsonl") == to_jsonl(archive)


async def test_an_unknown_session_cannot_be_exported(store: Store) -> None:
    with pytest.raises(ConfigError, match="no session nope"):
        await export_session(store, "nope")


async def test_an_unimportable_archive_writes_nothing(store: Store) -> None:
    cp = Checkpoint(id="a", session_id="s", parent_id=None, seq=1, message=Message.user("hi"), created_at=0)
    orphan = SessionArchive(id="s", workspace="/w", title=None, created_at=0, updated_at=0, checkpoints=(cp,))
    with pytest.raises(ConfigError, match="on no branch"):
        await import_session(store, orphan)
    assert await store.list_sessions() == []


class FailingStore(InMemorySessionStore):
    """Fails the third append, as a full disk would."""

    appends = 0

    async def append(self, session_id: str, message: Message, *, branch: str = "main") -> Checkpoint:
        self.appends += 1
        if self.appends == 3:
            raise StorageError("disk full")
        return await super().append(session_id, message, branch=branch)


async def test_a_store_failure_part_way_keeps_nothing() -> None:
    source = InMemorySessionStore()
    archive = await export_session(source, await _session_with_branches(source))
    failing = FailingStore()
    with pytest.raises(StorageError, match="the import failed, nothing was kept: disk full"):
        await import_session(failing, archive)
    assert failing.sessions == {} and failing.stored == {} and failing.heads == {}
