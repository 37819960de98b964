"""The turn journal through the tools and the loop, and the checked rewind, over fakes."""

from __future__ import annotations

import errno
from dataclasses import dataclass, field

import pytest
from pydantic import JsonValue

from circle._testing.journal import InMemoryFileJournal, InMemoryWorkspaceSnapshots
from circle.application.approvals import AllowAll
from circle.application.event_bus import EventBus
from circle.application.ports.process_runner import ProcessResult
from circle.application.rewind import Rewind
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.application.turn_journal import TurnJournal
from circle.domain.errors import StorageError
from circle.testing import (
    Call,
    FakeProcessRunner,
    InMemoryFileSystem,
    InMemorySessionStore,
    InMemoryTextSearch,
    RecordingSink,
    ScriptedModel,
    answer,
)

W = "/w"
SESSION = "s1"


class FailingFileSystem(InMemoryFileSystem):
    """Refuses writes to the paths in ``broken`` (a full disk, a read-only file)."""

    def __init__(self, files: dict[str, bytes | str]) -> None:
        super().__init__(files)
        self.broken: set[str] = set()

    async def write_bytes(self, path: str, data: bytes, *, follow_symlinks: bool = True) -> None:
        if path in self.broken:
            raise OSError(errno.ENOSPC, "No space left on device", path)
        await super().write_bytes(path, data, follow_symlinks=follow_symlinks)


@dataclass
class World:
    files: InMemoryFileSystem = field(default_factory=lambda: FailingFileSystem({f"{W}/.keep": ""}))
    journal: InMemoryFileJournal = field(default_factory=InMemoryFileJournal)
    processes: FakeProcessRunner = field(default_factory=FakeProcessRunner)

    def __post_init__(self) -> None:
        self.snapshots = InMemoryWorkspaceSnapshots(self.files, self.journal)
        self.recorder = TurnJournal(self.journal, session_id=SESSION, workspace=W, snapshots=self.snapshots)
        self.rewind = Rewind(self.journal, self.files)

    def context(self) -> ToolContext:
        return ToolContext(
            workspace=W,
            files=self.files,
            search=InMemoryTextSearch(self.files),
            processes=self.processes,
            approver=AllowAll(),
            journal=self.recorder,
        )

    async def tool(self, name: str, **arguments: JsonValue) -> ToolOutput:
        return await builtin_tools()[name].invoke(dict(arguments), self.context())

    def text(self, name: str) -> str | None:
        data = self.files.files.get(f"{W}/{name}")
        return None if data is None else data.decode()


async def a_turn_of_file_tools(world: World) -> None:
    world.files.put(f"{W}/a.txt", "alpha\n")
    world.files.put(f"{W}/gone.txt", "bye\n")
    world.recorder.begin("turn-1", label="change things\nsecond line")
    await world.tool("edit_file", file_path="a.txt", old_string="alpha", new_string="ALPHA")
    await world.tool("write_file", file_path="new/made.txt", content="made\n")
    await world.tool("delete", file_path="gone.txt")


async def test_the_file_tools_record_what_they_changed() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    (turn,) = await world.journal.turns(SESSION)
    assert (turn.turn_id, turn.number, turn.label) == ("turn-1", 1, "change things")
    assert [(r.path, r.before is None, r.after is None, r.source) for r in turn.receipts] == [
        (f"{W}/a.txt", False, False, "tool"),
        (f"{W}/new/made.txt", True, False, "tool"),
        (f"{W}/gone.txt", False, True, "tool"),
    ]
    assert world.journal.blobs[turn.receipts[0].before or ""] == b"alpha\n"


async def test_without_a_journal_the_tools_record_nothing() -> None:
    world = World()
    world.files.put(f"{W}/a.txt", "alpha\n")
    context = world.context()
    context.journal = None
    await builtin_tools()["write_file"].invoke({"file_path": "a.txt", "content": "x"}, context)
    assert world.journal.recorded == []


async def test_a_journal_failure_does_not_stop_the_change() -> None:
    world = World()
    world.journal.fail_blobs = True
    out = await world.tool("write_file", file_path="a.txt", content="x")
    assert not out.is_error and world.text("a.txt") == "x"
    assert world.journal.recorded == []


async def test_preview_reads_every_file_again() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    changes = await world.rewind.preview(SESSION, 1)
    assert [(c.path, c.action, c.current_matches_after) for c in changes] == [
        (f"{W}/a.txt", "modified", True),
        (f"{W}/new/made.txt", "created", True),
        (f"{W}/gone.txt", "deleted", True),
    ]
    world.files.put(f"{W}/a.txt", "the person's edit\n")
    changes = await world.rewind.preview(SESSION, 1)
    assert [c.current_matches_after for c in changes] == [False, True, True]
    assert changes[0].note == "was changed after the turn"


async def test_restore_puts_back_every_change_and_deletes_created_files() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    world.files.put(f"{W}/untracked.txt", "the person's\n")
    outcome = await world.rewind.restore(SESSION)
    assert outcome.restored and outcome.conflicts == ()
    assert world.text("a.txt") == "alpha\n"
    assert world.text("new/made.txt") is None
    assert world.text("gone.txt") == "bye\n"
    assert world.text("untracked.txt") == "the person's\n"
    (turn,) = await world.journal.turns(SESSION)
    assert turn.restored_at is not None
    touched = {*world.files.writes, *world.files.deleted}
    assert f"{W}/untracked.txt" not in touched


async def test_a_conflict_refuses_the_whole_restore() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    world.files.put(f"{W}/gone.txt", "made again by the person\n")
    writes_before = list(world.files.writes)
    outcome = await world.rewind.restore(SESSION, 1)
    assert not outcome.restored
    assert [(c.path, c.note) for c in outcome.conflicts] == [
        (f"{W}/gone.txt", "was made again after the turn deleted it")
    ]
    assert world.files.writes == writes_before
    assert world.text("a.txt") == "ALPHA\n" and world.text("new/made.txt") == "made\n"
    (turn,) = await world.journal.turns(SESSION)
    assert turn.restored_at is None


async def test_a_failed_write_puts_back_what_was_already_restored() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    assert isinstance(world.files, FailingFileSystem)
    world.files.broken.add(f"{W}/gone.txt")
    with pytest.raises(StorageError, match=r"cannot restore /w/gone\.txt: No space left on device"):
        await world.rewind.restore(SESSION, 1)
    assert world.text("a.txt") == "ALPHA\n"
    assert world.text("new/made.txt") == "made\n"
    assert world.text("gone.txt") is None


async def test_a_later_turn_on_the_same_file_is_named_in_the_conflict() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    world.recorder.begin("turn-2", label="again")
    await world.tool("edit_file", file_path="a.txt", old_string="ALPHA", new_string="beta")
    changes = await world.rewind.preview(SESSION, 1)
    assert changes[0].note == "was changed again by turn 2: rewind the later turns first"
    assert (await world.rewind.restore(SESSION)).turn.number == 2
    assert world.text("a.txt") == "ALPHA\n"
    assert (await world.rewind.restore(SESSION)).turn.number == 1
    assert world.text("a.txt") == "alpha\n"
    with pytest.raises(StorageError, match="no turn that changed files to rewind"):
        await world.rewind.restore(SESSION)


async def test_an_unknown_turn_is_a_clear_error() -> None:
    world = World()
    await a_turn_of_file_tools(world)
    with pytest.raises(StorageError, match=r"no turn 7 that changed files \(turns: 1\)"):
        await world.rewind.preview(SESSION, 7)


def a_command(world: World) -> ProcessResult:
    world.files.put(f"{W}/made.txt", "new\n")
    world.files.put(f"{W}/edited.txt", "after\n")
    del world.files.files[f"{W}/old.txt"]
    world.files.put(f"{W}/.git/index", "git's own")
    return ProcessResult(exit_code=0, output="")


async def test_a_commands_changes_are_recorded_and_restorable() -> None:
    world = World()
    world.files.put(f"{W}/old.txt", "old\n")
    world.files.put(f"{W}/edited.txt", "before\n")
    world.files.put(f"{W}/same.txt", "same\n")
    world.processes.script = lambda command: a_command(world)
    world.recorder.begin("t", label="run it")
    out = await world.tool("execute", command="make things")
    assert "[exit code 0]" in out.text and world.snapshots.taken == [W, W]
    (turn,) = await world.journal.turns(SESSION)
    assert [(r.path, r.source) for r in turn.receipts] == [
        (f"{W}/edited.txt", "command"),
        (f"{W}/made.txt", "command"),
        (f"{W}/old.txt", "command"),
    ]
    world.files.put(f"{W}/later.txt", "the person's\n")
    assert (await world.rewind.restore(SESSION)).restored
    assert world.text("old.txt") == "old\n" and world.text("edited.txt") == "before\n"
    assert world.text("made.txt") is None
    assert world.text("later.txt") == "the person's\n" and world.text(".git/index") == "git's own"


async def test_the_loop_journals_each_turn_under_its_prompts_checkpoint() -> None:
    files = InMemoryFileSystem({f"{W}/a.txt": "one\n"})
    journal = InMemoryFileJournal()
    store = InMemorySessionStore()
    model = ScriptedModel(
        [
            answer("", Call("edit_file", {"file_path": "a.txt", "old_string": "one", "new_string": "two"})),
            answer("done"),
            answer("", Call("write_file", {"file_path": "b.txt", "content": "b"})),
            answer("done"),
        ]
    )
    ports = Ports(
        model=model,
        store=store,
        files=files,
        search=InMemoryTextSearch(files),
        processes=FakeProcessRunner(),
        approver=AllowAll(),
        journal=journal,
        snapshots=InMemoryWorkspaceSnapshots(files, journal),
    )
    runtime = Runtime(ports, RuntimeOptions(workspace=W, model="scripted"), events=EventBus(RecordingSink()))
    session = await runtime.new_session()
    await session.prompt("edit a")
    await session.prompt("write b")
    turns = await journal.turns(session.session_id)
    assert [(t.number, t.label) for t in turns] == [(2, "write b"), (1, "edit a")]
    checkpoints = await store.history(session.session_id)
    prompts = {cp.id: cp.message.text for cp in checkpoints if cp.message.role == "user"}
    assert [prompts[t.turn_id] for t in turns] == ["write b", "edit a"]
    await Rewind(journal, files).restore(session.session_id, 1)
    assert files.files[f"{W}/a.txt"] == b"one\n" and files.files[f"{W}/b.txt"] == b"b"
