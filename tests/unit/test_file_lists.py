"""The files a stretch of conversation read and changed, as pi's compaction details list them."""

from __future__ import annotations

import json

from circle.application.events import CompactionEnded
from circle.domain.file_lists import file_lists
from circle.domain.messages import Message, StopReason, ToolCallPart
from circle.testing import Call, answer

from .test_compaction import WORKSPACE, Setup


def _calls(*calls: tuple[str, dict[str, object]]) -> Message:
    parts = tuple(
        ToolCallPart(id=f"c{i}", name=name, arguments=json.dumps(args))
        for i, (name, args) in enumerate(calls)
    )
    return Message(role="assistant", parts=parts, stop_reason=StopReason.TOOL_USE)


def test_reads_and_changes_are_listed_apart_sorted_and_once() -> None:
    messages = [
        Message.user("go"),
        _calls(("read_file", {"file_path": "b.py"}), ("read_file", {"file_path": "a.py"})),
        _calls(("edit_file", {"file_path": "b.py", "old_string": "x", "new_string": "y"})),
        _calls(("write_file", {"file_path": "c.py", "content": ""}), ("delete", {"file_path": "d.py"})),
        _calls(("read_file", {"file_path": "a.py"}), ("ls", {"path": "."})),
    ]
    lists = file_lists(messages)
    assert lists.read == ("a.py",)  # b.py was changed after it was read
    assert lists.modified == ("b.py", "c.py", "d.py")


def test_a_patch_names_every_file_it_adds_changes_moves_or_deletes() -> None:
    patch = "\n".join(
        [
            "*** Begin Patch",
            "*** Add File: new.txt",
            "+hello",
            "*** Update File: old.txt",
            "*** Move to: moved.txt",
            "@@",
            "-a",
            "+b",
            "*** Delete File: gone.txt",
            "*** End Patch",
        ]
    )
    lists = file_lists([_calls(("apply_patch", {"patch": patch}))])
    assert lists.modified == ("gone.txt", "moved.txt", "new.txt", "old.txt")


def test_a_malformed_patch_or_call_lists_nothing() -> None:
    broken = Message(
        role="assistant", parts=(ToolCallPart(id="c1", name="read_file", arguments="{not json"),)
    )
    assert file_lists([_calls(("apply_patch", {"patch": "nonsense"})), broken]) == file_lists([])


async def test_a_compaction_lists_the_files_the_summarized_messages_read_and_changed() -> None:
    setup = Setup()
    setup.files.put(f"{WORKSPACE}/f.txt", "alpha\n")
    setup.model.add(
        answer("", Call("read_file", {"file_path": "f.txt"})),
        answer("", Call("write_file", {"file_path": "g.txt", "content": "beta\n"})),
        answer("first done"),
        answer("second done"),
    )
    runtime = setup.runtime()
    session = await runtime.new_session()
    await session.prompt("look around")
    await session.prompt("and then")
    assert await session.loop.compact(session.conversation) is not None
    [ended] = [e for e in setup.sink.events if isinstance(e, CompactionEnded)]
    assert (ended.read_files, ended.modified_files) == (("f.txt",), ("g.txt",))


async def test_a_second_compaction_keeps_the_files_the_first_one_listed() -> None:
    setup = Setup()
    setup.files.put(f"{WORKSPACE}/f.txt", "alpha\n")
    setup.files.put(f"{WORKSPACE}/h.txt", "gamma\n")
    setup.model.add(
        answer("", Call("read_file", {"file_path": "f.txt"})),
        answer("", Call("write_file", {"file_path": "g.txt", "content": "beta\n"})),
        answer("first done"),
        answer("second done"),
    )
    runtime = setup.runtime()
    session = await runtime.new_session()
    await session.prompt("look around")
    await session.prompt("and then")
    assert await session.loop.compact(session.conversation) is not None
    setup.model.add(
        answer("", Call("read_file", {"file_path": "h.txt"})),
        answer("", Call("edit_file", {"file_path": "f.txt", "old_string": "alpha", "new_string": "a"})),
        answer("third done"),
        answer("fourth done"),
    )
    await session.prompt("read more")
    await session.prompt("and more")
    outcome = await session.loop.compact(session.conversation)
    assert outcome is not None and 0 in outcome.plan.summarize  # the first summary is summarized
    ended = [e for e in setup.sink.events if isinstance(e, CompactionEnded)]
    assert (ended[-1].read_files, ended[-1].modified_files) == (("h.txt",), ("f.txt", "g.txt"))
