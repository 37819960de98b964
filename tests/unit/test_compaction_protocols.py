"""A synthetic 500-message session with large tool results, compacted, then sent by every protocol."""

from __future__ import annotations

import itertools
import json

from circle._testing.compaction import InMemoryCompactionStore
from circle.adapters.models import _anthropic_wire, _openai_chat_wire, _openai_responses_wire
from circle.application.compaction import Compactor
from circle.application.conversation import Conversation
from circle.application.pruning import RequestPruner
from circle.domain.budget import RequestBudget, request_tokens
from circle.domain.compaction import is_summary
from circle.domain.messages import ImagePart, Message, StopReason, TextPart, ToolCallPart, ToolResultPart
from circle.domain.model import ModelRequest, ToolSpec
from circle.testing import InMemoryFileSystem, InMemorySessionStore, ScriptedModel, answer

SYSTEM = "You are Circle."
TOOLS = (ToolSpec(name="read_file", description="read", parameters={"type": "object"}),)
IMAGE = ImagePart(media_type="image/png", data="aGVsbG8=")


def synthetic_session() -> list[Message]:
    """500 messages: requests, tool rounds of one to three calls with 20,000-character results,
    images now and then, todo lists, and answers."""
    messages: list[Message] = []
    n = 0
    while len(messages) < 497:
        messages.append(Message.user(f"request #{len(messages)}"))
        for _ in range(3):
            calls = []
            for _ in range(1 + n % 3):
                n += 1
                name = "write_todos" if n % 17 == 0 else "read_file"
                calls.append(ToolCallPart(id=f"call_{n}", name=name, arguments=json.dumps({"n": n})))
            messages.append(Message(role="assistant", parts=tuple(calls), stop_reason=StopReason.TOOL_USE))
            for call in calls:
                content: tuple[TextPart | ImagePart, ...] = (TextPart(text=f"out {call.id} " + "y" * 20_000),)
                if n % 11 == 0:
                    content += (IMAGE,)
                part = ToolResultPart(tool_call_id=call.id, tool_name=call.name, content=content)
                messages.append(Message(role="tool", parts=(part,)))
        messages.append(Message(role="assistant", parts=(TextPart(text="ok"),), stop_reason=StopReason.END))
    messages = messages[:497]
    while messages[-1].role != "assistant" or messages[-1].tool_calls:  # end on a complete round
        messages.pop()
    messages.append(Message.user("the newest request"))
    return messages


async def compacted() -> tuple[list[Message], list[Message], Compactor, InMemoryCompactionStore, str]:
    store = InMemorySessionStore()
    info = await store.create_session(workspace="/w")
    original = synthetic_session()
    for message in original:
        await store.append(info.id, message)
    conversation = await Conversation.open(store, info.id)
    compactions = InMemoryCompactionStore(store)
    compactor = Compactor(
        model=ScriptedModel([answer("summary of the work so far")]),
        store=compactions,
        budget=RequestBudget(128_000, reserve_output=16_000),
        model_name="m",
        files=InMemoryFileSystem(),
        data_dir="/data",
        workspace="/w",
    )
    outcome = await compactor.compact(conversation)
    assert outcome is not None
    return original, conversation.messages, compactor, compactions, info.id


async def test_the_compacted_session_fits_covers_everything_and_is_valid_for_every_protocol() -> None:
    original, messages, compactor, compactions, session_id = await compacted()
    assert len(original) >= 490
    (record,) = await compactions.compactions(session_id)

    # coverage: each original is summarized (and linked from the record) or carried verbatim
    stored = compactions.sessions.stored
    replaced = {id(stored[i].message) for i in record.replaced_ids}
    carried = messages[1:]
    assert len(record.replaced_ids) + len(carried) == len(original)
    assert all(m in carried for m in original if id(m) not in replaced)
    assert is_summary(messages[0]) and messages[-1].text == "the newest request"
    assert compactor.files is not None and record.history_file is not None
    saved = (await compactor.files.read_bytes(record.history_file)).decode()
    for checkpoint_id in record.replaced_ids:
        for result in stored[checkpoint_id].message.tool_results:
            assert f"out {result.tool_call_id} " + "y" * 20_000 in saved
    todos = [m for m in carried if any(c.name == "write_todos" for c in m.tool_calls)]
    assert todos, "the latest todo round is put back"

    # the budget: the request as sent fits
    sent = RequestPruner().apply(messages)
    assert request_tokens(SYSTEM, sent, TOOLS) <= compactor.budget.limit
    request = ModelRequest(model="m", system=SYSTEM, messages=sent, tools=TOOLS)

    chat = json.loads(_openai_chat_wire.RequestEncoder().encode(request, model="m"))
    assert_chat_valid(chat["messages"])
    responses = json.loads(_openai_responses_wire.RequestEncoder().encode(request, model="m"))
    assert_responses_valid(responses["input"])
    body, _ = _anthropic_wire.RequestEncoder().encode(request, model="m", scope="s")
    assert_anthropic_valid(json.loads(body)["messages"])


def assert_chat_valid(wire: list[dict[str, object]]) -> None:
    pending: set[str] = set()
    for message in wire:
        if message["role"] == "tool":
            assert message["tool_call_id"] in pending
            pending.discard(str(message["tool_call_id"]))
            continue
        if message["role"] == "user" and pending:  # attachments follow their tool messages
            assert "attachments" in json.dumps(message["content"])
            continue
        assert not pending, f"{pending} unanswered before a {message['role']} message"
        for call in message.get("tool_calls") or []:  # type: ignore[attr-defined]
            pending.add(call["id"])
    assert not pending


def assert_responses_valid(items: list[dict[str, object]]) -> None:
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert sorted(map(str, calls)) == sorted(map(str, outputs))
    seen: set[object] = set()
    for item in items:
        if item.get("type") == "function_call":
            seen.add(item["call_id"])
        elif item.get("type") == "function_call_output":
            assert item["call_id"] in seen


def assert_anthropic_valid(wire: list[dict[str, object]]) -> None:
    assert wire[0]["role"] == "user"
    roles = [m["role"] for m in wire]
    assert all(a != b for a, b in itertools.pairwise(roles)), "roles alternate"
    for index, message in enumerate(wire):
        blocks = message["content"]
        assert isinstance(blocks, list)
        uses = {b["id"] for b in blocks if b["type"] == "tool_use"}
        if uses:
            following = wire[index + 1]["content"]
            assert isinstance(following, list)
            assert uses == {b["tool_use_id"] for b in following if b["type"] == "tool_result"}
        results = {b["tool_use_id"] for b in blocks if b["type"] == "tool_result"}
        if results:
            previous = wire[index - 1]["content"]
            assert isinstance(previous, list)
            assert results <= {b["id"] for b in previous if b["type"] == "tool_use"}
