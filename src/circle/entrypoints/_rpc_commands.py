"""RPC commands about the running work: prompts and the queue, compaction, the person's own
commands, retries, and the skills a prompt may name. Each is wired to the service the other faces
use (the session's inbox, the context window's compaction, :mod:`~circle.application.person_commands`,
the model guard's retries)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from pydantic import JsonValue

from circle.application.agent_loop import QueueMode
from circle.application.model_guard import GuardedModel
from circle.application.person_commands import run_person_command
from circle.application.skills import find_skills

from ._rpc_io import Command, Handler, RpcError, flag_field, text_field
from ._rpc_media import ImagesError, image_parts
from .event_codec import compaction_result

if TYPE_CHECKING:
    from .rpc import RpcServer

QUEUE_MODES = ("all", "one-at-a-time")
CONCURRENT = frozenset({"bash", "compact"})
"""Commands that run while later ones are read (``abort_bash`` and ``abort`` can stop them)."""


async def prompt(server: RpcServer, command: Command) -> JsonValue:
    message = text_field(command, "message")
    try:
        media = await image_parts(command.get("images"), server.runtime.ports.images)
    except ImagesError as exc:
        raise RpcError(str(exc)) from None
    if not server.session.is_busy:
        return await server.start(message, media)
    if media:
        raise RpcError("a turn is running: images go with a prompt that starts a turn")
    behavior = command.get("streamingBehavior")
    if behavior not in ("steer", "followUp"):
        raise RpcError(
            'a turn is running: set "streamingBehavior" to "steer" or "followUp" (or send steer / follow_up)'
        )
    return _queue(server, message, steer=behavior == "steer")


async def steer(server: RpcServer, command: Command) -> JsonValue:
    message = text_field(command, "message")
    if not server.session.is_busy:
        return await server.start(message)
    return _queue(server, message, steer=True)


async def follow_up(server: RpcServer, command: Command) -> JsonValue:
    message = text_field(command, "message")
    if not server.session.is_busy:
        return await server.start(message)
    return _queue(server, message, steer=False)


def _queue(server: RpcServer, message: str, *, steer: bool) -> JsonValue:
    if steer:
        server.session.steer(message)
    else:
        server.session.follow_up(message)
    server.publish_queue()
    return {"disposition": "queued"}


async def abort(server: RpcServer, command: Command) -> JsonValue:
    server.aborted = True
    for task in server.running.values():
        if task.get_name() == "compact":
            task.cancel()
    stopped = await server.session.abort()
    await server.wait_for_work()
    server.publish_queue()
    return {"aborted": stopped}


async def clear_queue(server: RpcServer, command: Command) -> JsonValue:
    steering, follow_ups = server.session.inbox.clear()
    server.publish_queue()
    return {"steering": list(steering), "followUp": list(follow_ups)}


async def set_steering_mode(server: RpcServer, command: Command) -> JsonValue:
    server.steering_mode = _mode(command)
    server.apply_settings()
    return None


async def set_follow_up_mode(server: RpcServer, command: Command) -> JsonValue:
    server.follow_up_mode = _mode(command)
    server.apply_settings()
    return None


def _mode(command: Command) -> QueueMode:
    mode = command.get("mode")
    if mode not in QUEUE_MODES:
        raise RpcError('"mode" is required: "all" or "one-at-a-time"')
    return cast(QueueMode, mode)


async def compact(server: RpcServer, command: Command) -> JsonValue:
    """Compact now, as /compact does; the summary as pi's CompactionResult."""
    instructions = command.get("customInstructions")
    if instructions is not None and not isinstance(instructions, str):
        raise RpcError('"customInstructions" is text')
    server.not_busy("compact")
    loop = server.session.loop
    if loop.window.compactor is None:
        raise RpcError("this session keeps no compactions (--no-session), so nothing can be compacted")
    try:
        outcome = await loop.compact(server.session.conversation, instructions=instructions or None)
    except asyncio.CancelledError:
        server.compacting = False
        server.out.write({"type": "compaction_end", "reason": "manual", "result": None, "aborted": True})
        raise RpcError("the compaction was aborted: nothing changed") from None
    ended = server.last_compaction
    if outcome is None or ended is None or ended.error is not None:
        why = ended.error if ended is not None and ended.error else "nothing to compact"
        raise RpcError(f"not compacted: {why}")
    return compaction_result(ended)


async def set_auto_compaction(server: RpcServer, command: Command) -> JsonValue:
    server.auto_compaction = flag_field(command, "enabled")
    server.apply_settings()
    return None


async def set_auto_retry(server: RpcServer, command: Command) -> JsonValue:
    _guard(server).auto_retry = flag_field(command, "enabled")
    return None


async def abort_retry(server: RpcServer, command: Command) -> JsonValue:
    return {"aborted": _guard(server).abort_retries() > 0}


def _guard(server: RpcServer) -> GuardedModel:
    model = server.runtime.session_model()
    if not isinstance(model, GuardedModel):
        raise RpcError("this endpoint's requests are not retried, so there is nothing to change")
    return model


async def bash(server: RpcServer, command: Command) -> JsonValue:
    """Run the person's command; its output goes with the next prompt, as ``!command`` does."""
    line = text_field(command, "command")
    try:
        ran = await run_person_command(server.runtime, line)
    except asyncio.CancelledError:
        return {"output": "", "exitCode": None, "cancelled": True, "truncated": False}
    server.session.add_aside(ran.aside())
    return {"output": ran.output, "exitCode": ran.exit_code, "cancelled": False, "truncated": ran.truncated}


async def abort_bash(server: RpcServer, command: Command) -> JsonValue:
    stopped = [task for task in server.running.values() if task.get_name() == "bash"]
    for task in stopped:
        task.cancel()
    if stopped:
        await asyncio.wait(stopped)
    return {"aborted": bool(stopped)}


async def get_commands(server: RpcServer, command: Command) -> JsonValue:
    """The skills, in pi's RpcSlashCommand shape (``skill:NAME``); a prompt naming one reaches the
    model as written, which loads it with its ``skill`` tool."""
    runtime = server.runtime
    home = runtime.options.home
    catalog = await find_skills(
        runtime.ports.files, workspace=runtime.options.workspace, home=home if home.startswith("/") else None
    )
    found: list[JsonValue] = []
    for skill in sorted(catalog.skills.values(), key=lambda s: s.name):
        source: dict[str, JsonValue] = {
            "path": skill.path,
            "source": skill.source,
            "scope": "project" if skill.source == "project" else "user",
            "origin": "top-level",
        }
        name = f"skill:{skill.name}"
        found.append(
            {"name": name, "description": skill.description, "source": "skill", "sourceInfo": source}
        )
    return {"commands": found}


COMMANDS: dict[str, Handler] = {
    "prompt": prompt,
    "steer": steer,
    "follow_up": follow_up,
    "abort": abort,
    "clear_queue": clear_queue,
    "set_steering_mode": set_steering_mode,
    "set_follow_up_mode": set_follow_up_mode,
    "compact": compact,
    "set_auto_compaction": set_auto_compaction,
    "set_auto_retry": set_auto_retry,
    "abort_retry": abort_retry,
    "bash": bash,
    "abort_bash": abort_bash,
    "get_commands": get_commands,
}

__all__ = ["COMMANDS", "CONCURRENT"]
