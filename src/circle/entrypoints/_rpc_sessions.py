"""RPC commands about sessions: start, switch, fork and clone them, and read what they hold.

Sessions live in SQLite, not in files: where pi takes a session file's path (``switch_session``'s
``sessionPath``), Circle takes the session's id (a path's file name without its extension is read
as one, so ``…/<id>.jsonl`` works too); ``fork``'s ``entryId`` is a checkpoint id, as
``get_fork_messages`` lists them.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from pydantic import JsonValue

from circle.domain.checkpoints import Checkpoint, path_to
from circle.domain.compaction import is_summary, without_compaction_copies
from circle.domain.messages import Message
from circle.domain.pricing import cost

from ._rpc_io import Command, Handler, RpcError, text_field
from .event_codec import langchain_json, langchain_system, usage_json

if TYPE_CHECKING:
    from .rpc import RpcServer


async def new_session(server: RpcServer, command: Command) -> JsonValue:
    server.not_busy("start a new session")
    await server.switch_to(server.runtime.new_session())
    return {"sessionId": server.session.session_id, "cancelled": False}


async def switch_session(server: RpcServer, command: Command) -> JsonValue:
    given = text_field(command, "sessionPath").strip()
    server.not_busy("switch sessions")
    session_id = PurePath(given).stem if "/" in given else given
    if session_id == server.session.session_id:
        return {"cancelled": False, "sessionId": session_id}
    await server.switch_to(server.runtime.open_session(session_id))
    return {"cancelled": False, "sessionId": session_id}


async def _person_messages(server: RpcServer) -> list[Checkpoint]:
    """The person's messages on the current branch, oldest first, with those a compaction summarized
    (found on the branch as it was before it, compaction after compaction)."""
    runtime, session = server.runtime, server.session
    store, compactions = runtime.ports.store, runtime.ports.compactions
    path = await session.conversation.history()  # none before the first prompt
    records = {}
    if compactions is not None:
        records = {r.summary_checkpoint_id: r for r in await compactions.compactions(session.session_id)}
    by_id = {c.id: c for c in await store.checkpoints(session.session_id)} if records else {}
    found: list[Checkpoint] = []
    keep: set[str] | None = None  # the checkpoints of ``path`` to list (None: all)
    while True:
        found[:0] = [c for c in path if (keep is None or c.id in keep) and _from_person(c.message)]
        record = records.pop(path[0].id, None) if path else None
        if record is None:
            return found
        path, keep = path_to(by_id, record.previous_head_id), set(record.replaced_ids)


def _from_person(message: Message) -> bool:
    return message.role == "user" and bool(message.text) and not is_summary(message)


async def get_fork_messages(server: RpcServer, command: Command) -> JsonValue:
    """The person's messages, each with its checkpoint id to fork from."""
    found: list[JsonValue] = [
        {"entryId": c.id, "text": c.message.typed} for c in await _person_messages(server)
    ]
    return {"messages": found}


async def fork(server: RpcServer, command: Command) -> JsonValue:
    """A new session holding the conversation before the person's message ``entryId``; its text
    comes back, to be edited and sent again."""
    entry = text_field(command, "entryId").strip()
    server.not_busy("fork the session")
    found = next((c for c in await _person_messages(server) if c.id == entry), None)
    if found is None:
        raise RpcError(f"no message {entry!r} of the person on this branch: get_fork_messages lists them")
    runtime, session_id = server.runtime, server.session.session_id
    if found.parent_id is None:  # the first message: nothing comes before it
        await server.switch_to(runtime.new_session())
    else:
        await server.switch_to(runtime.fork_session(session_id, at_checkpoint=found.parent_id))
    return {"text": found.message.typed, "cancelled": False, "sessionId": server.session.session_id}


async def clone(server: RpcServer, command: Command) -> JsonValue:
    """A new session holding the whole current branch, to go on from there."""
    server.not_busy("clone the session")
    runtime, session = server.runtime, server.session
    if not session.conversation.messages:  # nothing to copy (nor stored yet): a new one is the clone
        await server.switch_to(runtime.new_session())
    else:
        await server.switch_to(runtime.fork_session(session.session_id))
    return {"cancelled": False, "sessionId": server.session.session_id}


async def get_messages(server: RpcServer, command: Command) -> JsonValue:
    messages: list[JsonValue] = [langchain_system(server.session.loop.settings.system)]
    for message in server.session.conversation.messages:
        messages.extend(langchain_json(message))
    return {"messages": messages}


async def get_native_messages(server: RpcServer, command: Command) -> JsonValue:
    loop = server.session.loop
    messages: list[JsonValue] = []
    for message in server.session.conversation.messages:
        data: dict[str, JsonValue] = {"message": message.model_dump(mode="json")}
        if message.role == "assistant" and message.usage is not None:
            data["cost_usd"] = cost(message.usage, loop.costs.prices_for(message.model))
        messages.append(data)
    return {"messages": messages}


async def get_last_assistant_text(server: RpcServer, command: Command) -> JsonValue:
    for message in reversed(server.session.conversation.messages):
        if message.role == "assistant" and message.text:
            return {"text": message.text}
    return {"text": None}


async def get_session_stats(server: RpcServer, command: Command) -> JsonValue:
    session = server.session
    loop, conversation = session.loop, session.conversation
    paid = loop.window.session_messages(conversation)
    stored = await session.conversation.checkpoints()
    written, compactions = without_compaction_copies(stored)
    counts = {"user": 0, "assistant": 0, "tool": 0}
    calls = results = 0
    for message in written:
        counts[message.role] += 1
        calls += len(message.tool_calls)
        results += len(message.tool_results)
    usage = loop.window.session_usage(conversation) + loop.costs.unstored  # compactions' own included
    priced = loop.costs.total_cost_parts(paid, loop.costs.unstored)
    spent = None if priced is None else priced.total  # one source for `cost` and `tokens.cost`
    return {
        "sessionId": session.session_id,
        "userMessages": counts["user"],
        "assistantMessages": counts["assistant"],
        "toolCalls": calls,
        "toolResults": results,
        "totalMessages": len(written),
        "compactions": compactions,
        "tokens": {**usage_json(usage, priced=priced), "total": usage.total},
        "cost": spent or 0.0,
        "costs": {"total": spent, "subagents": loop.costs.usage_cost(loop.costs.unstored)},
        "contextUsage": _context_usage(server),
    }


def _context_usage(server: RpcServer) -> JsonValue:
    """pi's ContextUsage: the context's tokens as the endpoint last counted them (null when it has
    not since the last compaction, or never), the model's window, and the share of it used."""
    session = server.session
    window = server.runtime.ports.catalog.lookup(session.loop.settings.model).context_window
    tokens = session.loop.window.reported(session.conversation)
    percent = None if tokens is None else round(100 * tokens / max(1, window), 2)
    return {"tokens": tokens, "contextWindow": window, "percent": percent}


async def set_session_name(server: RpcServer, command: Command) -> JsonValue:
    name = text_field(command, "name").strip()
    await server.session.conversation.set_name(name)
    server.out.write({"type": "session_info_changed", "name": name})
    return {"name": name}


async def export_html(server: RpcServer, command: Command) -> JsonValue:
    from pathlib import Path

    from circle.domain.export import ExportFormat

    from ._transfer import export_file

    given = command.get("outputPath")
    if given is not None and (not isinstance(given, str) or not given.strip()):
        raise RpcError('"outputPath" is a path (a string)')
    runtime = server.runtime
    path = Path(runtime.options.workspace) / (given or f"{server.session.session_id}.html")
    html: ExportFormat = "html"
    session = server.session
    branch = session.conversation.branch  # the one the client sees
    await export_file(runtime.ports.store, session.session_id, path, export_format=html, branch=branch)
    return {"path": str(path)}


COMMANDS: dict[str, Handler] = {
    "new_session": new_session,
    "switch_session": switch_session,
    "fork": fork,
    "clone": clone,
    "get_fork_messages": get_fork_messages,
    "get_messages": get_messages,
    "get_native_messages": get_native_messages,
    "get_last_assistant_text": get_last_assistant_text,
    "get_session_stats": get_session_stats,
    "set_session_name": set_session_name,
    "export_html": export_html,
}

__all__ = ["COMMANDS"]
