"""RPC mode: another program drives Circle through its standard input and output.

One JSON command a line comes in (LF-separated; a trailing CR is dropped; U+2028 inside a string is
just a character); each gets one response line, with its ``id`` when it had one. The work a prompt
starts is written as the JSON events of print mode, plus ``steer``, ``agent_settled`` and, last,
``jobs_stopped``. Commands are handled one at a time in the order they come; ``prompt`` answers at
once and its turn runs on while later commands are read, ``abort`` answers once the turn stopped.

When the input closes (end of file, or a read error such as a hang-up) the running turn finishes and
is saved, then the model's background jobs are waited for (``CIRCLE_JOB_WAIT`` seconds and ten
turns, not after an abort), what still runs is stopped, ``jobs_stopped`` is written and Circle exits
0, or 130 after ctrl+c or SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TextIO

from pydantic import JsonValue

from circle.application.attachments import MediaPart
from circle.application.events import AgentEvent, CompactionEnded, CompactionStarted
from circle.application.jobs import Job
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.domain.catalog import ModelInfo
from circle.domain.compaction import without_compaction_copies
from circle.domain.errors import CircleError
from circle.domain.messages import Usage
from circle.domain.pricing import cost
from circle.domain.thinking import UNKNOWN_OUTPUT_ROOM, parse_level

from ._crash import write_crash_log
from ._rpc_media import ImagesError, image_parts
from ._stdin import StdinLines
from .event_codec import (
    API_NAMES,
    EventEncoder,
    dumps,
    langchain_json,
    langchain_system,
    session_origin,
    usage_json,
)
from .headless import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    STOP_SIGNALS,
    RunOptions,
    job_wait_s,
    open_session,
    prepare,
)

EXIT_FAILED = 1


class RpcError(Exception):
    """A command that cannot be done: its response has ``success: false`` and this message."""


class Output:
    """Writes one JSON object a line, flushed at once (the reader waits for whole lines)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, data: dict[str, JsonValue]) -> None:
        try:
            self.out.write(dumps(data) + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):
            pass  # the reader went away: the work goes on and is saved; nothing more to tell


class RpcServer:
    """The commands of RPC mode on one runtime; the current session changes with ``new_session``."""

    def __init__(
        self,
        runtime: Runtime,
        session: AgentSession,
        out: Output,
        *,
        job_wait_s: float,
        endpoint: tuple[str, str | None] = ("", None),
    ) -> None:
        self.runtime = runtime
        self.endpoint = endpoint
        """The endpoint's base URL and key, for listing its models."""
        self.out = out
        self.job_wait_s = job_wait_s
        self.session = session
        self.aborted = False
        """An abort came after the last prompt: jobs are not waited for at the end."""
        self.interrupted = False
        self.compacting = False
        """A compaction of the current session runs (between ``compaction_start`` and its end)."""
        self._work: asyncio.Task[object] | None = None
        self._endpoint_models: list[str] | None = None
        self._known_jobs: dict[int, str] = {}
        self.encoder = EventEncoder(session_origin(runtime, lambda: self.session))
        self._watch(session)
        runtime.events.subscribe(self)

    # events ----------------------------------------------------------------------------------

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, CompactionStarted | CompactionEnded):
            self.compacting = isinstance(event, CompactionStarted)
        for line in self.encoder.lines(event):
            self.out.write(line)

    def _watch(self, session: AgentSession) -> None:
        session.on_settled(
            lambda: self.out.write({"type": "agent_settled", "session_id": session.session_id})
        )
        if session.jobs is not None:
            jobs = session.jobs
            jobs.on_started(lambda job: self._job_events([job], session.session_id))
            jobs.on_ended(lambda: self._job_events(jobs.jobs, session.session_id))

    def _job_events(self, jobs: list[Job], session_id: str) -> None:
        for job in jobs:
            if self._known_jobs.get(id(job)) != job.status:
                self._known_jobs[id(job)] = job.status
                self.out.write({"type": "job", **job_json(job, session_id)})

    # the loop --------------------------------------------------------------------------------

    async def serve(self, lines: StdinLines) -> int:
        while (text := await lines.next()) is not None:
            if not text.strip():
                continue
            await self.handle(text)
        return await self.finish()

    async def handle(self, text: str) -> None:
        try:
            command: JsonValue = json.loads(text)
        except ValueError as exc:
            self.out.write(_failure("parse", f"Failed to parse command: {exc}"))
            return
        except RecursionError:
            self.out.write(_failure("parse", "Failed to parse command: it is nested too deeply"))
            return
        if not isinstance(command, dict):
            self.out.write(_failure("parse", "Failed to parse command: a command is a JSON object"))
            return
        name = command.get("type")
        ident = command.get("id")
        if not isinstance(name, str) or not name:
            self.out.write(_failure("parse", 'Failed to parse command: it has no "type"', ident))
            return
        handler = self._commands().get(name)
        try:
            if handler is None:
                raise RpcError(f"unknown command {name!r}: the commands are {', '.join(self._commands())}")
            data = await handler(command)
        except RpcError as exc:
            self.out.write(_failure(name, str(exc), ident))
            return
        except CircleError as exc:
            self.out.write(_failure(name, exc.message, ident))
            return
        except Exception as exc:  # a fault of ours: one line to the client, the details in a log file
            path = write_crash_log()
            where = f" (details in {path})" if path else ""
            self.out.write(_failure(name, f"internal error: {type(exc).__name__}: {exc}{where}", ident))
            return
        response: dict[str, JsonValue] = {"type": "response", "command": name, "success": True}
        if ident is not None:
            response["id"] = ident
        if data is not None:
            response["data"] = data
        self.out.write(response)

    async def finish(self) -> int:
        """The input has closed: let the turn end, wait for the jobs, stop what still runs."""
        if self._work is not None and not self._work.done():
            await asyncio.wait({self._work})
        session = self.session
        if not self.aborted and not self.interrupted and session.jobs is not None:
            await session.wait_for_jobs(self.job_wait_s)
        stopped = await self.runtime.stop_jobs()
        self.out.write({"type": "jobs_stopped", "count": stopped})
        return EXIT_INTERRUPTED if self.interrupted else EXIT_OK

    def interrupt(self) -> None:
        """ctrl+c, SIGTERM or SIGHUP: stop the running turn; nothing more starts; leave."""
        self.interrupted = True
        self.session.hold_job_turns = True
        self.session.inbox.clear()
        self.session.cancel()

    # commands --------------------------------------------------------------------------------

    def _commands(self) -> dict[str, Callable[[Mapping[str, JsonValue]], Awaitable[JsonValue]]]:
        return {
            "prompt": self.prompt,
            "steer": self.steer,
            "follow_up": self.follow_up,
            "abort": self.abort,
            "clear_queue": self.clear_queue,
            "new_session": self.new_session,
            "get_state": self.get_state,
            "get_messages": self.get_messages,
            "get_native_messages": self.get_native_messages,
            "get_last_assistant_text": self.get_last_assistant_text,
            "get_session_stats": self.get_session_stats,
            "set_session_name": self.set_session_name,
            "get_available_models": self.get_available_models,
            "set_model": self.set_model,
            "set_thinking_level": self.set_thinking_level,
            "export_html": self.export_html,
            "list_jobs": self.list_jobs,
            "get_jobs": self.list_jobs,
            "stop_job": self.stop_job,
            "background": self.background,
        }

    async def _start(self, message: str, media: tuple[MediaPart, ...] = ()) -> JsonValue:
        self.aborted = False
        self._work = asyncio.create_task(self.session.prompt(message, media=media))
        await asyncio.sleep(0)  # the session is busy from here on
        return {"disposition": "started"}

    async def prompt(self, command: Mapping[str, JsonValue]) -> JsonValue:
        message = _text(command, "message")
        try:
            media = await image_parts(command.get("images"), self.runtime.ports.images)
        except ImagesError as exc:
            raise RpcError(str(exc)) from None
        if not self.session.is_busy:
            return await self._start(message, media)
        if media:
            raise RpcError("a turn is running: images go with a prompt that starts a turn")
        behavior = command.get("streamingBehavior")
        if behavior == "steer":
            self.session.steer(message)
        elif behavior == "followUp":
            self.session.follow_up(message)
        else:
            raise RpcError(
                'a turn is running: set "streamingBehavior" to "steer" or "followUp" '
                "(or send steer / follow_up)"
            )
        return {"disposition": "queued"}

    async def steer(self, command: Mapping[str, JsonValue]) -> JsonValue:
        message = _text(command, "message")
        if not self.session.is_busy:
            return await self._start(message)
        self.session.steer(message)
        return {"disposition": "queued"}

    async def follow_up(self, command: Mapping[str, JsonValue]) -> JsonValue:
        message = _text(command, "message")
        if not self.session.is_busy:
            return await self._start(message)
        self.session.follow_up(message)
        return {"disposition": "queued"}

    async def abort(self, command: Mapping[str, JsonValue]) -> JsonValue:
        self.aborted = True
        stopped = await self.session.abort()
        if self._work is not None and not self._work.done():
            await asyncio.wait({self._work})
        idle = self.session.idle_turn
        if idle is not None and not idle.done():
            await asyncio.wait({idle})
        return {"aborted": stopped}

    async def clear_queue(self, command: Mapping[str, JsonValue]) -> JsonValue:
        steering, follow_ups = self.session.inbox.clear()
        return {"steering": list(steering), "followUp": list(follow_ups)}

    async def new_session(self, command: Mapping[str, JsonValue]) -> JsonValue:
        self._not_busy("start a new session")
        self.session.hold_job_turns = True
        self.aborted = True  # the old session's jobs get no more turns
        self.session = await self.runtime.new_session()
        self.aborted = False
        self._watch(self.session)
        return {"sessionId": self.session.session_id, "cancelled": False}

    async def get_state(self, command: Mapping[str, JsonValue]) -> JsonValue:
        session = self.session
        info = await self.runtime.ports.store.get_session(session.session_id)
        return {
            "model": self._model_json(self.runtime.options.model),
            "thinkingLevel": self.runtime.options.thinking or "off",
            "isStreaming": session.is_busy,
            "sessionId": session.session_id,
            "sessionName": info.name if info is not None else None,
            "messageCount": len(session.conversation.messages),
            "pendingMessageCount": len(session.inbox.steering) + len(session.inbox.follow_ups),
            "isCompacting": self.compacting,
            "steeringMode": "all",
            "followUpMode": "one-at-a-time",
            "sessionFile": None,
            "autoCompactionEnabled": session.loop.settings.compaction.enabled,
        }

    async def get_messages(self, command: Mapping[str, JsonValue]) -> JsonValue:
        messages: list[JsonValue] = [langchain_system(self.session.loop.settings.system)]
        for message in self.session.conversation.messages:
            messages.extend(langchain_json(message))
        return {"messages": messages}

    async def get_native_messages(self, command: Mapping[str, JsonValue]) -> JsonValue:
        loop = self.session.loop
        messages: list[JsonValue] = []
        for message in self.session.conversation.messages:
            data: dict[str, JsonValue] = {"message": message.model_dump(mode="json")}
            if message.role == "assistant" and message.usage is not None:
                data["cost_usd"] = cost(message.usage, loop.costs.prices_for(message.model))
            messages.append(data)
        return {"messages": messages}

    async def get_last_assistant_text(self, command: Mapping[str, JsonValue]) -> JsonValue:
        for message in reversed(self.session.conversation.messages):
            if message.role == "assistant" and message.text:
                return {"text": message.text}
        return {"text": None}

    async def get_session_stats(self, command: Mapping[str, JsonValue]) -> JsonValue:
        loop, conversation = self.session.loop, self.session.conversation
        paid = loop.window.session_messages(conversation)
        stored = await self.runtime.ports.store.checkpoints(self.session.session_id)
        written, compactions = without_compaction_copies(stored)
        counts = {"user": 0, "assistant": 0, "tool": 0}
        calls = results = 0
        for message in written:
            counts[message.role] += 1
            calls += len(message.tool_calls)
            results += len(message.tool_results)
        usage = loop.costs.unstored
        for message in paid:  # the answers paid for, compactions' own included
            usage = usage + (message.usage or Usage())
        spent = loop.costs.total_cost(paid, loop.costs.unstored)
        return {
            "sessionId": self.session.session_id,
            "userMessages": counts["user"],
            "assistantMessages": counts["assistant"],
            "toolCalls": calls,
            "toolResults": results,
            "totalMessages": len(written),
            "compactions": compactions,
            "tokens": {**usage_json(usage), "total": usage.total},
            "costs": {"total": spent, "subagents": loop.costs.usage_cost(loop.costs.unstored)},
        }

    async def set_session_name(self, command: Mapping[str, JsonValue]) -> JsonValue:
        name = _text(command, "name").strip()
        await self.runtime.ports.store.set_name(self.session.session_id, name)
        return {"name": name}

    async def get_available_models(self, command: Mapping[str, JsonValue]) -> JsonValue:
        models = await self._list_models()
        return {"models": [self._model_json(model) for model in models]}

    async def set_model(self, command: Mapping[str, JsonValue]) -> JsonValue:
        model = _text(command, "modelId").strip()
        self._not_busy("switch the model")
        listed = self._endpoint_models
        if listed is None:
            try:
                listed = await self._list_models()
            except CircleError:
                listed = []  # an endpoint that lists nothing may still have the model
        if listed and model not in listed:
            raise RpcError(f"Model not found: {model} (get_available_models lists the endpoint's)")
        await self.runtime.switch_model(self.session, model)
        return self._model_json(model)

    async def set_thinking_level(self, command: Mapping[str, JsonValue]) -> JsonValue:
        self._not_busy("change the thinking level")
        try:
            level = parse_level(_text(command, "level"))
        except ValueError as exc:
            raise RpcError(str(exc)) from None
        sent = self.runtime.switch_thinking(self.session, level)
        return {"thinkingLevel": level or "off", "sent": sent is not None}

    async def export_html(self, command: Mapping[str, JsonValue]) -> JsonValue:
        from circle.domain.export import ExportFormat

        from ._transfer import export_file

        given = command.get("outputPath")
        if given is not None and (not isinstance(given, str) or not given.strip()):
            raise RpcError('"outputPath" is a path (a string)')
        workspace = Path(self.runtime.options.workspace)
        path = workspace / (given or f"{self.session.session_id}.html")
        html: ExportFormat = "html"
        await export_file(self.runtime.ports.store, self.session.session_id, path, export_format=html)
        return {"path": str(path)}

    async def list_jobs(self, command: Mapping[str, JsonValue]) -> JsonValue:
        found: list[JsonValue] = []
        for session in self.runtime.sessions:
            if session.jobs is not None:
                found.extend(job_json(job, session.session_id) for job in session.jobs.jobs)
        return {"jobs": found}

    async def stop_job(self, command: Mapping[str, JsonValue]) -> JsonValue:
        job_id = command.get("jobId", command.get("job_id"))
        if not isinstance(job_id, str) or not job_id.strip():
            raise RpcError('stop_job needs "jobId": list_jobs shows them')
        sessions = [self.session, *(s for s in reversed(self.runtime.sessions) if s is not self.session)]
        for session in sessions:
            jobs = session.jobs
            if jobs is not None and any(job.id == job_id.strip() for job in jobs.jobs):
                job = await jobs.stop(job_id)
                self._known_jobs[id(job)] = job.status
                return {"job": job_json(job, session.session_id)}
        raise RpcError(f"no background job {job_id!r}: list_jobs shows them")

    async def background(self, command: Mapping[str, JsonValue]) -> JsonValue:
        jobs = self.session.jobs
        moved = 0 if jobs is None else await jobs.move_waiting_to_background()
        return {"moved": moved}

    # helpers ---------------------------------------------------------------------------------

    def _not_busy(self, what: str) -> None:
        if self.session.is_busy:
            raise RpcError(f"a turn is running: {what} when it has ended (or abort it)")

    async def _list_models(self) -> list[str]:
        from ._setup import probe

        base_url, key = self.endpoint
        found = await probe(base_url, key or "")
        self._endpoint_models = list(found.models)
        return self._endpoint_models

    def _model_json(self, model: str) -> JsonValue:
        info: ModelInfo = self.runtime.ports.catalog.lookup(model)
        protocol = self.runtime.options.protocol
        prices = info.prices
        return {
            "id": model,
            "name": info.name or model,
            "api": API_NAMES.get(protocol, protocol),
            "provider": info.provider or self.encoder.origin.provider(model),
            "baseUrl": self.endpoint[0] or None,
            "reasoning": info.reasoning,
            "input": ["text", "image"] if info.reads_images else ["text"],
            "contextWindow": info.context_window,
            "maxTokens": info.max_output or UNKNOWN_OUTPUT_ROOM,
            "cost": {  # US dollars per million tokens; 0 where the price is unknown, as pi counts it
                "input": prices.input if prices else 0.0,
                "output": prices.output if prices else 0.0,
                "cacheRead": prices.cache_read if prices else 0.0,
                "cacheWrite": prices.cache_write if prices else 0.0,
            },
        }


def job_json(job: Job, session_id: str) -> dict[str, JsonValue]:
    """A background job as the ``job`` event and ``list_jobs`` show it."""
    return {
        "id": job.id,
        "sessionId": session_id,
        "kind": job.kind,
        "command": job.command,
        "status": job.status,
        "exitCode": job.exit_code,
        "description": job.describe(),
        "outputPath": job.output_path,
        "startedAt": job.started,
    }


def _text(command: Mapping[str, JsonValue], key: str) -> str:
    value = command.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RpcError(f'"{key}" is required: a non-empty string')
    return value


def _failure(command: str, error: str, ident: JsonValue = None) -> dict[str, JsonValue]:
    data: dict[str, JsonValue] = {"type": "response", "command": command, "success": False, "error": error}
    if ident is not None:
        data["id"] = ident
    return data


async def run_rpc(opts: RunOptions, *, out: TextIO, err: TextIO) -> int:
    """``circle --mode rpc``: serve commands from stdin until it closes; the exit code."""
    output = Output(out)
    try:
        wait_s = job_wait_s(os.environ)
        runtime, config = await prepare(opts, err)
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        output.write({"type": "error", "code": exc.code, "message": exc.message})
        return EXIT_FAILED
    try:
        session = await open_session(runtime, opts)
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        output.write({"type": "error", "code": exc.code, "message": exc.message})
        await runtime.aclose()
        return EXIT_FAILED
    endpoint = (config.endpoint.base_url, config.endpoint.api_key)
    server = RpcServer(runtime, session, output, job_wait_s=wait_s, endpoint=endpoint)
    loop = asyncio.get_running_loop()
    lines = StdinLines(getattr(sys.stdin, "buffer", None)).start()

    def interrupt() -> None:
        server.interrupt()
        lines.close()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, interrupt)
    try:
        return await server.serve(lines)
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        await runtime.aclose()


__all__ = ["RpcServer", "run_rpc"]
