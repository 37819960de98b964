"""Undo and redo of the person's last message: messages, files and what the model is sent next."""

from __future__ import annotations

from circle._testing.journal import InMemoryFileJournal, InMemoryWorkspaceSnapshots
from circle.application.approvals import AllowAll
from circle.application.event_bus import EventBus
from circle.application.rewind import Rewind
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.application.session import AgentSession
from circle.application.undo import Undo
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


async def two_turns() -> tuple[AgentSession, InMemoryFileSystem, ScriptedModel, Undo]:
    files = InMemoryFileSystem({f"{W}/a.txt": "one\n"})
    journal = InMemoryFileJournal()
    model = ScriptedModel(
        [
            answer("first done"),
            answer("", Call("edit_file", {"file_path": "a.txt", "old_string": "one", "new_string": "two"})),
            answer("edited"),
            answer("after the undo"),
        ]
    )
    ports = Ports(
        model=model,
        store=InMemorySessionStore(),
        files=files,
        search=InMemoryTextSearch(files),
        processes=FakeProcessRunner(),
        approver=AllowAll(),
        journal=journal,
        snapshots=InMemoryWorkspaceSnapshots(files, journal),
    )
    runtime = Runtime(ports, RuntimeOptions(workspace=W, model="scripted"), events=EventBus(RecordingSink()))
    session = await runtime.new_session()
    await session.prompt("hello")
    await session.prompt("edit a")
    return session, files, model, Undo(Rewind(journal, files))


def texts(session: AgentSession) -> list[str]:
    return [m.text for m in session.conversation.messages if m.text and m.role != "tool"]


async def test_undo_takes_out_the_last_message_and_its_files_and_redo_brings_both_back() -> None:
    session, files, _, undo = await two_turns()

    outcome = await undo.undo(session)

    assert outcome is not None and outcome.done and outcome.text == "edit a"
    assert (outcome.messages, outcome.files) == (4, 1)
    assert texts(session) == ["hello", "first done"]
    assert files.files[f"{W}/a.txt"] == b"one\n"
    stored = await session.conversation.store.history(session.session_id)
    assert [cp.message.text for cp in stored] == ["hello", "first done"]

    again = await undo.redo(session)

    assert again is not None and again.done and again.messages == 4
    assert texts(session) == ["hello", "first done", "edit a", "edited"]
    assert files.files[f"{W}/a.txt"] == b"two\n"
    assert await undo.redo(session) is None


async def test_the_model_is_not_sent_what_was_undone() -> None:
    session, _, model, undo = await two_turns()
    await undo.undo(session)

    await session.prompt("something else")

    sent = [m.text for m in model.requests[-1].messages if m.text]
    assert sent == ["hello", "first done", "something else"]
    assert await undo.redo(session) is None  # a message was sent since: nothing to redo


async def test_undo_twice_empties_the_conversation_and_redo_twice_restores_it() -> None:
    session, files, _, undo = await two_turns()
    await undo.undo(session)
    await undo.undo(session)
    assert session.conversation.messages == []
    assert await undo.undo(session) is None
    await undo.redo(session)
    await undo.redo(session)
    assert texts(session) == ["hello", "first done", "edit a", "edited"]
    assert files.files[f"{W}/a.txt"] == b"two\n"


async def test_a_file_changed_since_stops_the_undo_and_nothing_is_taken_out() -> None:
    session, files, _, undo = await two_turns()
    files.put(f"{W}/a.txt", "the person's edit\n")

    outcome = await undo.undo(session)

    assert outcome is not None and not outcome.done
    assert [c.path for c in outcome.conflicts] == [f"{W}/a.txt"]
    assert texts(session)[-1] == "edited"
    assert files.files[f"{W}/a.txt"] == b"the person's edit\n"


async def test_a_file_changed_after_the_undo_stops_the_redo() -> None:
    session, files, _, undo = await two_turns()
    await undo.undo(session)
    files.put(f"{W}/a.txt", "changed meanwhile\n")

    outcome = await undo.redo(session)

    assert outcome is not None and not outcome.done
    assert outcome.conflicts[0].note == "was changed after the rewind"
    assert texts(session) == ["hello", "first done"]


async def test_undo_and_redo_name_the_message_as_the_person_typed_it() -> None:
    """Their line quoted the text the model read: a file's contents, a mode's notice before it."""
    session, _, model, undo = await two_turns()
    model.add(answer("read it"))
    await session.prompt("<file path='a.txt'>\none\n</file>\n\nsee @a.txt", typed="see @a.txt")

    undone = await undo.undo(session)
    redone = await undo.redo(session)

    assert undone is not None and undone.text == "see @a.txt"
    assert redone is not None and redone.text == "see @a.txt"
