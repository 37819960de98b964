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
from collections.abc import Awaitable
from typing import TextIO

from pydantic import JsonValue

from circle.application.agent_loop import QueueMode
from circle.application.attachments import MediaPart
from circle.application.events import AgentEvent, CompactionEnded, CompactionStarted, Steered, TurnStarted
from circle.application.jobs import Job
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.domain.errors import CircleError

from . import _rpc_commands, _rpc_jobs, _rpc_models, _rpc_sessions
from ._crash import write_crash_log
from ._exit_guard import leave_within
from ._rpc_approvals import RpcApprovals, approval_timeout_s
from ._rpc_io import Command, Handler, Output, RpcError, failure
from ._stdin import StdinLines
from .event_codec import EventEncoder, session_origin
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


class RpcServer:
    """The commands of RPC mode on one runtime; the current session changes with ``new_session``,
    ``switch_session``, ``fork`` and ``clone``."""

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
        self.endpoint_models: list[str] | None = None
        self.out = out
        self.job_wait_s = job_wait_s
        self.session = session
        self.aborted = False
        """An abort came after the last prompt: jobs are not waited for at the end."""
        self.interrupted = False
        self.compacting = False
        """A compaction of the current session runs (between ``compaction_start`` and its end)."""
        self.last_compaction: CompactionEnded | None = None
        """The current session's last compaction, as its end event told it."""
        self.steering_mode: QueueMode = "all"
        self.follow_up_mode: QueueMode = "one-at-a-time"
        self.auto_compaction = True
        self.running: dict[int, asyncio.Task[None]] = {}
        """Commands that run while later ones are read (``bash``, ``compact``), by their task's id."""
        self.approvals: RpcApprovals | None = None
        """With ``--rpc-approvals``: the client answers what asks."""
        self._work: asyncio.Task[object] | None = None
        self.known_jobs: dict[int, str] = {}
        """Each job's status as the last ``job`` event told it (by the job's id())."""
        self._queue_sent: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self.commands: dict[str, Handler] = {
            **_rpc_commands.COMMANDS,
            **_rpc_sessions.COMMANDS,
            **_rpc_models.COMMANDS,
            **_rpc_jobs.COMMANDS,
            "get_state": get_state,
        }
        self.encoder = EventEncoder(session_origin(runtime, lambda: self.session))
        self._watch(session)
        runtime.events.subscribe(self)

    # events ----------------------------------------------------------------------------------

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, CompactionStarted | CompactionEnded):
            self.compacting = isinstance(event, CompactionStarted)
            self.last_compaction = event if isinstance(event, CompactionEnded) else None
        for line in self.encoder.lines(event):
            self.out.write(line)
        if isinstance(event, Steered | TurnStarted):
            self.publish_queue()

    def publish_queue(self) -> None:
        """``queue_update`` when the waiting steering messages or follow-ups changed since the last."""
        inbox = self.session.inbox
        now = (tuple(inbox.steering), tuple(inbox.follow_ups))
        if now != self._queue_sent:
            self._queue_sent = now
            self.out.write({"type": "queue_update", "steering": list(now[0]), "followUp": list(now[1])})

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
            if self.known_jobs.get(id(job)) != job.status:
                self.known_jobs[id(job)] = job.status
                self.out.write({"type": "job", **_rpc_jobs.job_json(job, session_id)})

    # the loop --------------------------------------------------------------------------------

    async def serve(self, lines: StdinLines) -> int:
        while (text := await lines.next()) is not None:
            if not text.strip():
                continue
            await self.handle(text)
        if self.approvals is not None:
            self.approvals.close()  # nobody is left to answer: what waits is denied
        return await self.finish()

    async def handle(self, text: str) -> None:
        try:
            command: JsonValue = json.loads(text)
        except ValueError as exc:
            self.out.write(failure("parse", f"Failed to parse command: {exc}"))
            return
        except RecursionError:
            self.out.write(failure("parse", "Failed to parse command: it is nested too deeply"))
            return
        if not isinstance(command, dict):
            self.out.write(failure("parse", "Failed to parse command: a command is a JSON object"))
            return
        name = command.get("type")
        ident = command.get("id")
        if not isinstance(name, str) or not name:
            self.out.write(failure("parse", 'Failed to parse command: it has no "type"', ident))
            return
        if name == "extension_ui_response":  # an answer, not a command: it gets no response
            if self.approvals is not None:
                self.approvals.answer(command)
            return
        if name in _rpc_commands.CONCURRENT:
            task = asyncio.create_task(self._answer(name, ident, command), name=name)
            self.running[id(task)] = task
            task.add_done_callback(lambda done: self.running.pop(id(done), None))
            await asyncio.sleep(0)  # it has started before the next command is read
            return
        await self._answer(name, ident, command)

    async def _answer(self, name: str, ident: JsonValue, command: Command) -> None:
        handler = self.commands.get(name)
        try:
            if handler is None:
                raise RpcError(f"unknown command {name!r}: the commands are {', '.join(self.commands)}")
            data = await handler(self, command)
        except RpcError as exc:
            self.out.write(failure(name, str(exc), ident))
            return
        except CircleError as exc:
            self.out.write(failure(name, exc.message, ident))
            return
        except Exception as exc:  # a fault of ours: one line to the client, the details in a log file
            path = write_crash_log()
            where = f" (details in {path})" if path else ""
            self.out.write(failure(name, f"internal error: {type(exc).__name__}: {exc}{where}", ident))
            return
        response: dict[str, JsonValue] = {"type": "response", "command": name, "success": True}
        if ident is not None:
            response["id"] = ident
        if data is not None:
            response["data"] = data
        self.out.write(response)

    async def finish(self) -> int:
        """The input has closed: let the turn end, wait for the jobs, stop what still runs."""
        if self.running:
            await asyncio.wait(set(self.running.values()))
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
        for task in self.running.values():
            task.cancel()

    # what the commands share -----------------------------------------------------------------

    async def start(self, message: str, media: tuple[MediaPart, ...] = ()) -> JsonValue:
        """Start the work of a prompt (the session sends the ``bash`` outputs waiting first); it runs on."""
        self.aborted = False
        self._work = asyncio.create_task(self.session.prompt(message, media=media))
        await asyncio.sleep(0)  # the session is busy from here on
        return {"disposition": "started"}

    async def wait_for_work(self) -> None:
        """Until the prompt's work and any job turn have stopped."""
        if self._work is not None and not self._work.done():
            await asyncio.wait({self._work})
        idle = self.session.idle_turn
        if idle is not None and not idle.done():
            await asyncio.wait({idle})

    async def switch_to(self, opening: Awaitable[AgentSession]) -> None:
        """Make the session ``opening`` gives the current one; the old one's jobs get no more turns."""
        self.session.hold_job_turns = True
        self.aborted = True
        left, self.session = self.session, await opening
        self.aborted = False
        if left is not self.session:
            await self.runtime.leave(left)  # another Circle may open it now
        self._watch(self.session)
        self.apply_settings()
        self.publish_queue()

    def apply_settings(self) -> None:
        """The queue modes and automatic compaction chosen, on the current session and its loop."""
        inbox = self.session.inbox
        inbox.steering_mode, inbox.follow_up_mode = self.steering_mode, self.follow_up_mode
        self.session.loop.window.automatic = self.auto_compaction

    def not_busy(self, what: str) -> None:
        if self.session.is_busy or self.compacting:
            raise RpcError(f"a turn is running: {what} when it has ended (or abort it)")


async def get_state(server: RpcServer, command: Command) -> JsonValue:
    session = server.session
    info = await session.conversation.info()
    return {
        "model": _rpc_models.model_json(server, server.runtime.options.model),
        "thinkingLevel": server.runtime.options.thinking or "off",
        "isStreaming": session.is_busy,
        "sessionId": session.session_id,
        "sessionName": info.name if info is not None else None,
        "messageCount": len(session.conversation.messages),
        "pendingMessageCount": len(session.inbox.steering) + len(session.inbox.follow_ups),
        "isCompacting": server.compacting,
        "steeringMode": server.steering_mode,
        "followUpMode": server.follow_up_mode,
        "sessionFile": None,
        "autoCompactionEnabled": server.auto_compaction and session.loop.window.compactor is not None,
    }


def _answered_by_client(runtime: Runtime, approvals: RpcApprovals) -> None:
    """Approvals and the model's questions go to the client, file changes with their diff (for
    the sessions opened from now on)."""
    from .tui._preview import Previews

    previews = Previews(runtime.ports.files, workspace=runtime.options.workspace)
    runtime.events.subscribe(previews)
    approvals.previewer = previews.preview
    runtime.ports.asker = approvals


async def run_rpc(opts: RunOptions, *, out: TextIO, err: TextIO) -> int:
    """``circle --mode rpc``: serve commands from stdin until it closes; the exit code."""
    output = Output(out)
    approvals = RpcApprovals(output, timeout_s=approval_timeout_s(os.environ)) if opts.rpc_approvals else None
    try:
        wait_s = job_wait_s(os.environ)
        runtime, config = await prepare(opts, err, person=approvals)
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        output.write({"type": "error", "code": exc.code, "message": exc.message})
        return EXIT_FAILED
    if approvals is not None:
        _answered_by_client(runtime, approvals)
    try:
        session = await open_session(runtime, opts)
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        output.write({"type": "error", "code": exc.code, "message": exc.message})
        await runtime.aclose()
        return EXIT_FAILED
    endpoint = (config.endpoint.base_url, config.endpoint.api_key)
    server = RpcServer(runtime, session, output, job_wait_s=wait_s, endpoint=endpoint)
    server.approvals = approvals
    loop = asyncio.get_running_loop()
    lines = StdinLines(getattr(sys.stdin, "buffer", None)).start()

    def interrupt() -> None:
        leave_within()  # should leaving not finish, the process ends anyway (_exit_guard.py)
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
