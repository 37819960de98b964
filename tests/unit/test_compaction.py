"""Compaction in the loop: automatic past the budget, on overflow, on request; atomic; linked back."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from circle._testing.compaction import InMemoryCompactionStore
from circle.application.approvals import AllowAll
from circle.application.event_bus import EventBus
from circle.application.events import CompactionEnded, CompactionStarted, TurnEnded
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.application.tools.compaction import REQUESTED
from circle.domain.budget import text_tokens, tools_tokens
from circle.domain.catalog import ModelInfo
from circle.domain.checkpoints import path_to
from circle.domain.compaction import SUMMARY_MARKER, is_summary
from circle.domain.errors import ContextOverflowError
from circle.domain.messages import Message, StopReason, ToolCallPart
from circle.domain.model import ModelEvent, ModelRequest
from circle.domain.transcript import project_folder
from circle.entrypoints.event_codec import event_json
from circle.testing import (
    Call,
    FakeProcessRunner,
    InMemoryCatalog,
    InMemoryFileSystem,
    InMemorySessionStore,
    InMemoryTextSearch,
    RecordingSink,
    ScriptedModel,
    answer,
)

WORKSPACE = "/w/app"
DATA = "/data"
SUMMARY = "The person asked for the first task; ten files were read; all done."


class SummarizingModel(ScriptedModel):
    """Answers every request without tools (a summary request) with SUMMARY, the rest by script."""

    def __init__(self) -> None:
        super().__init__()
        self.summary_requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if request.tools:
            async for event in super().stream(request):
                yield event
            return
        self.summary_requests.append(request)
        for event in answer(SUMMARY):
            yield event


@dataclass
class Setup:
    window: int = 128_000
    model: SummarizingModel = field(default_factory=SummarizingModel)
    store: InMemorySessionStore = field(default_factory=InMemorySessionStore)
    files: InMemoryFileSystem = field(default_factory=lambda: InMemoryFileSystem({f"{WORKSPACE}/.keep": ""}))
    sink: RecordingSink = field(default_factory=RecordingSink)
    compactions: InMemoryCompactionStore = field(init=False)

    def __post_init__(self) -> None:
        self.compactions = InMemoryCompactionStore(self.store)

    def runtime(self) -> Runtime:
        info = ModelInfo(id="scripted", provider="test", context_window=self.window, max_output=500)
        ports = Ports(
            model=self.model,
            store=self.store,
            files=self.files,
            search=InMemoryTextSearch(self.files),
            processes=FakeProcessRunner(),
            approver=AllowAll(),
            catalog=InMemoryCatalog([info]),
            compactions=self.compactions,
        )
        options = RuntimeOptions(workspace=WORKSPACE, model="scripted", data_dir=DATA)
        return Runtime(ports, options, events=EventBus(self.sink))

    async def fixed_tokens(self) -> int:
        runtime = self.runtime()
        return text_tokens(await runtime.system_prompt()) + tools_tokens(
            t.spec() for t in runtime.select_tools().values()
        )


async def seeded(setup: Setup, *, rounds: int = 10, size: int = 4_000) -> str:
    """A stored session: a first task with ``rounds`` large tool rounds, then its answer."""
    info = await setup.store.create_session(workspace=WORKSPACE)
    await setup.store.append(info.id, Message.user("first task"))
    for i in range(rounds):
        call = ToolCallPart(id=f"c{i}", name="read_file", arguments='{"file_path": "f.txt"}')
        await setup.store.append(
            info.id, Message(role="assistant", parts=(call,), stop_reason=StopReason.TOOL_USE)
        )
        await setup.store.append(
            info.id, Message.tool_result(call_id=f"c{i}", name="read_file", text=f"file {i}: " + "x" * size)
        )
    await setup.store.append(info.id, Message(role="assistant", parts=(), stop_reason=StopReason.END))
    return info.id


async def small_window(setup: Setup, room: int = 6_000) -> None:
    setup.window = math.ceil((await setup.fixed_tokens() + room) / 0.85)


async def test_past_the_budget_older_messages_are_summarized_and_the_tail_kept() -> None:
    setup = Setup()
    await small_window(setup)
    session_id = await seeded(setup)
    before = [cp.message for cp in await setup.store.history(session_id)]
    setup.model.add(answer("second done"))
    session = await setup.runtime().open_session(session_id)
    result = await session.prompt("second task")
    assert result.answer == "second done"

    (summary_request,) = setup.model.summary_requests
    assert summary_request.tools == () and "first task" in summary_request.messages[0].text
    sent = setup.model.requests[-1].messages
    assert is_summary(sent[0]) and SUMMARY in sent[0].text
    assert sent[-1].text == "second task"
    assert len(sent) < len(before)

    started, ended = setup.sink.of(CompactionStarted), setup.sink.of(CompactionEnded)
    assert [e.reason for e in started if isinstance(e, CompactionStarted)] == ["threshold"]
    end = ended[0]
    assert isinstance(end, CompactionEnded) and end.error is None and end.summarized > 10
    assert event_json(end)["type"] == "compaction_end"

    # every original message stays in the store, and the record links the summary to them
    (record,) = await setup.compactions.compactions(session_id)
    stored = setup.store.stored
    assert [cp.message for cp in path_to(stored, record.previous_head_id)] == [*before, sent[-1]]
    replaced = [stored[i].message for i in record.replaced_ids]
    assert replaced == before[: len(replaced)]
    assert stored[record.summary_checkpoint_id].parent_id is None
    assert is_summary(stored[record.summary_checkpoint_id].message)

    # the full text of what was summarized is in the data folder, not in the project
    assert (
        record.history_file
        == f"{DATA}/projects/{project_folder(WORKSPACE)}/conversation_history/{session_id}-1.md"
    )
    saved = setup.files.files[record.history_file].decode()
    assert "first task" in saved and "file 0: " + "x" * 4_000 in saved
    assert not any(path.startswith(WORKSPACE) and "history" in path for path in setup.files.files)

    # reopening the session gives the compacted conversation
    reopened = await setup.runtime().open_session(session_id)
    assert reopened.conversation.messages[0].text.startswith(SUMMARY_MARKER)
    assert reopened.conversation.messages == session.conversation.messages


async def test_a_compaction_that_fails_part_way_leaves_the_session_as_it_was() -> None:
    setup = Setup()
    await small_window(setup)
    session_id = await seeded(setup)
    setup.compactions.fail_after = 2
    setup.model.add(answer("still answered"))
    session = await setup.runtime().open_session(session_id)
    before_ids = [cp.id for cp in await setup.store.history(session_id)]
    stored_before = set(setup.store.stored)
    result = await session.prompt("second task")

    assert result.answer == "still answered" and result.error is None
    end = setup.sink.of(CompactionEnded)[0]
    assert isinstance(end, CompactionEnded) and end.error and "interrupted" in end.error
    after = await setup.store.history(session_id)
    assert [cp.id for cp in after][: len(before_ids)] == before_ids
    assert set(setup.store.stored) - stored_before == {cp.id for cp in after[len(before_ids) :]}
    assert await setup.compactions.compactions(session_id) == []
    assert not any("conversation_history" not in p and p.startswith(DATA) for p in setup.files.files)


async def test_an_overflow_compacts_once_and_sends_the_request_again() -> None:
    setup = Setup()
    session_id = await seeded(setup)
    setup.model.add(ContextOverflowError("too long"), answer("after the retry"))
    session = await setup.runtime().open_session(session_id)
    result = await session.prompt("second task")
    assert result.answer == "after the retry"
    end = setup.sink.of(CompactionEnded)[0]
    assert isinstance(end, CompactionEnded) and end.reason == "overflow" and end.will_retry
    assert is_summary(setup.model.requests[-1].messages[0])


async def test_an_overflow_with_nothing_to_compact_ends_the_turn_with_the_error() -> None:
    setup = Setup()
    setup.model.add(ContextOverflowError("too long"))
    session = await setup.runtime().new_session()
    result = await session.prompt("hi")
    assert result.error is not None and result.error.code == "context-overflow"


async def test_compact_conversation_compacts_after_its_round_with_the_instructions() -> None:
    setup = Setup()
    session_id = await seeded(setup)
    setup.model.add(
        answer("", Call("compact_conversation", {"instructions": "keep the file names"})), answer("compacted")
    )
    session = await setup.runtime().open_session(session_id)
    result = await session.prompt("tidy up")
    assert result.answer == "compacted"
    assert "keep the file names" in setup.model.summary_requests[0].messages[0].text
    last = setup.model.requests[-1].messages
    assert is_summary(last[0])
    results = [m.tool_results[0] for m in last if m.role == "tool"]
    assert results and results[-1].text == REQUESTED
    started = [e.reason for e in setup.sink.of(CompactionStarted) if isinstance(e, CompactionStarted)]
    assert started == ["manual"]


async def test_compact_on_request_and_costs_keep_the_answers_it_summarized() -> None:
    setup = Setup()
    setup.model.add(*[answer("", Call("ls", {})) for _ in range(6)], answer("first done"))
    runtime = setup.runtime()
    session = await runtime.new_session()
    await session.prompt("look around")
    usage_before = sum(m.usage.total for m in session.conversation.messages if m.usage)
    outcome = await session.loop.compact(session.conversation)
    assert outcome is not None and outcome.summarized > 0
    counted = session.loop.window.session_usage(session.conversation)
    assert counted.total == usage_before + 15  # the summary's own
    setup.model.add(answer("second"))
    await session.prompt("again")
    assert isinstance(setup.sink.events[-2], TurnEnded)


async def test_without_a_compaction_store_the_tool_is_not_offered() -> None:
    setup = Setup()
    runtime = setup.runtime()
    runtime.ports.compactions = None
    assert "compact_conversation" not in runtime.select_tools()
    assert "compact_conversation" in setup.runtime().select_tools()


async def test_a_session_opened_again_counts_the_answers_compacted_away() -> None:
    setup = Setup()
    setup.model.add(*[answer("", Call("ls", {})) for _ in range(6)], answer("first done"))
    runtime = setup.runtime()
    session = await runtime.new_session()
    await session.prompt("look around")
    answered = sum(m.usage.total for m in session.conversation.messages if m.usage)
    await session.loop.compact(session.conversation)
    await runtime.release()

    again = await setup.runtime().open_session(session.session_id)
    recounted = again.loop.window.session_usage(again.conversation)
    assert recounted.total == answered + 15  # the summary's own call, stored with the summary
