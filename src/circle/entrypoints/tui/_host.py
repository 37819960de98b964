"""The open session as the interface drives it: prompts, cancel, the person's commands, switching
sessions, and the services behind the slash commands. Nothing here draws; the screen does."""

from __future__ import annotations

import asyncio
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from circle.application.agent_loop import TurnResult
from circle.application.approvals import ApprovalPolicy
from circle.application.attachments import Attached, MediaPart, mentioned
from circle.application.person_commands import run_person_command
from circle.application.ports.session_store import SessionInfo
from circle.application.rewind import Rewind
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.application.skills import find_skills
from circle.application.subagents import SubagentRun, Subagents
from circle.domain.checkpoints import Checkpoint
from circle.domain.errors import CircleError, ConfigError
from circle.domain.messages import Usage
from circle.domain.todos import Todo, current_todos
from circle.entrypoints.tui import _format
from circle.entrypoints.tui._backend import Backend
from circle.entrypoints.tui.widgets.earlier import TAIL


@dataclass
class ShellOutcome:
    command: str
    output: str
    exit_code: int | None
    sent: bool


@dataclass
class Host:
    """The runtime, the open session and the policy, with what the interface asks of them."""

    runtime: Runtime
    session: AgentSession
    policy: ApprovalPolicy
    backend: Backend
    trusted: bool
    pending_media: tuple[MediaPart, ...] = ()
    """Images and PDFs the command line attached, waiting to go with the first message."""
    pending_files: Attached | None = None
    """The files ``@file`` on the command line attached, waiting to go with the first message."""
    session_usage: Usage = field(default_factory=Usage)
    session_cost: float | None = None
    session_estimated: int = 0
    """Of :attr:`session_usage`, the tokens guessed (no endpoint counted them)."""
    context_tokens: int = 0
    left: str | None = None
    """The last stored session this one took over from (/new, /resume, /fork): the one to go on
    with when the open session never stored a message."""

    @property
    def workspace(self) -> str:
        return self.runtime.options.workspace

    @property
    def model(self) -> str:
        return self.session.loop.settings.model

    @property
    def thinking(self) -> str | None:
        return self.session.loop.settings.thinking

    @property
    def context_window(self) -> int:
        return self.runtime.ports.catalog.lookup(self.model).context_window

    @property
    def context_pct(self) -> float | None:
        """How full the window is: the newest answer an endpoint counted and an estimate of what
        came after it (a cancelled or failed answer counts nothing, so it is estimated too), else
        the figure last read (:attr:`context_tokens`: a compacted session's, until an answer)."""
        tokens = self.session.loop.window.reported(self.session.conversation) or self.context_tokens
        if not tokens:
            return None
        return 100 * tokens / max(1, self.context_window)

    @property
    def plan_mode(self) -> bool:
        return self.session.loop.context.plan_mode.active

    def cycle_mode(self) -> str:
        """shift+tab: default → accept-edits → plan mode → default. From auto or read-only it goes to
        default first; it never turns auto on. Returns what is now in force, as the footer says it."""
        plan = self.session.loop.context.plan_mode
        if plan.active:
            plan.switch(False)  # the model hears of the net change with the next message
            self.policy.mode = "default"
            return "default"
        if self.policy.mode == "accept-edits":
            self.policy.mode = "default"
            plan.switch(True)
            return "plan mode"
        self.policy.mode = "accept-edits" if self.policy.mode == "default" else "default"
        return self.policy.mode

    def count_history(self) -> None:
        """A resumed session's totals (the tokens and cost of every answer it paid for, those
        compacted away too), and the context its last answer used."""
        for message in self.session.conversation.messages:
            if message.role == "assistant" and message.usage is not None and message.usage.total:
                self.context_tokens = message.usage.total
        self.count_totals()

    def count_totals(self) -> None:
        """The session's totals as the loop counts them: all its calls used, never less."""
        loop, conversation = self.session.loop, self.session.conversation
        self.session_usage = loop.window.session_usage(conversation) + loop.costs.unstored
        self.session_estimated = loop.estimated
        paid = loop.window.session_messages(conversation)
        self.session_cost = loop.costs.total_cost(paid, loop.costs.unstored)

    def todos(self) -> tuple[Todo, ...]:
        return current_todos(self.session.conversation.messages)

    # -- the person's messages

    async def prompt(self, text: str, *, typed: str | None = None) -> TurnResult:
        """Send the person's ``text`` (``typed``: as the input box showed it, pastes folded) with
        the files its @mentions name; the session adds what else waits (``!`` outputs, plan mode).
        While a background job's notice is being worked on, the message waits for that work to end.
        A mention that cannot be attached raises :class:`AttachmentError`."""
        ports = self.runtime.ports
        attached = await mentioned(text, workspace=self.workspace, files=ports.files, images=ports.images)
        if self.pending_files is not None:
            attached, self.pending_files = self.pending_files.plus(attached), None
        media, self.pending_media = self.pending_media, ()
        if not self.session.conversation.messages:  # the first message names the session in lists
            info = await self.session.conversation.info()
            if info is not None and not info.title:
                await self.session.conversation.set_title(_format.one_line(typed or text, 80))
        session = self.session
        await session.until_settled()  # nothing may start in between: prompt() begins at once
        return await session.prompt(text, media=media, attached=attached, typed=typed)

    def cancel(self) -> bool:
        return self.session.cancel()

    async def shell(self, command: str, *, sent: bool) -> ShellOutcome:
        """Run the person's ``!command`` in the workspace; with ``sent`` its output waits for the
        next message."""
        ran = await run_person_command(self.runtime, command)
        if sent:
            self.session.add_aside(ran.aside())
        return ShellOutcome(command, ran.output, ran.exit_code, sent)

    # -- sessions

    async def sessions(self) -> list[SessionInfo]:
        return await self.runtime.ports.store.list_sessions(workspace=self.workspace, limit=50)

    async def switch_to(self, session: AgentSession) -> None:
        left = self.session
        if left.conversation.stored and left.session_id != session.session_id:
            self.left = left.session_id
        self.session = session
        if left is not session:
            await self.runtime.leave(left)  # another Circle may open it now
        self.session_usage, self.session_cost, self.context_tokens = Usage(), None, 0
        self.session_estimated = 0
        self.count_history()

    async def new_session(self) -> None:
        await self.switch_to(await self.runtime.new_session())

    async def resume(self, session_id: str) -> None:
        """Open ``session_id`` with what its screen shows read (see :meth:`read_rest`)."""
        await self.switch_to(await self.runtime.open_session(session_id, tail=TAIL))

    async def read_rest(self) -> None:
        """Read the messages the open session was opened without (a long one opens by its tail);
        what waits for them is told then (``conversation.on_loaded``)."""
        await self.session.conversation.load()

    async def checkpoints(self) -> list[Checkpoint]:
        return await self.session.conversation.history()

    async def all_checkpoints(self) -> list[Checkpoint]:
        return await self.session.conversation.checkpoints()

    async def fork(self, checkpoint_id: str) -> None:
        forked = await self.runtime.fork_session(self.session.session_id, at_checkpoint=checkpoint_id)
        await self.switch_to(forked)

    async def name(self, name: str) -> None:
        await self.session.conversation.set_name(name or None)

    async def export(self, path: Path) -> Path:
        from circle.entrypoints._transfer import export_file

        if not self.session.conversation.stored:
            raise ConfigError("nothing to export yet: the session has no messages")
        target = path if path.is_absolute() else Path(self.workspace) / path
        session = self.session
        branch = session.conversation.branch  # the one on screen, as /tree left it
        await export_file(self.runtime.ports.store, session.session_id, target, branch=branch)
        return target

    async def compact(self, instructions: str | None) -> str | None:
        """Compact now. The conversation shows how it went (from the compaction's events); the line
        returned, if any, says why nothing was tried."""
        loop = self.session.loop
        if loop.window.compactor is None:
            return "This session keeps no compactions, so nothing can be compacted."
        await loop.compact(self.session.conversation, instructions=instructions)
        self.count_totals()  # the summary's call counts too
        return None

    # -- rewinding files

    def rewinder(self) -> Rewind:
        if self.runtime.ports.journal is None:
            raise ConfigError("this session keeps no journal of file changes, so nothing can be rewound")
        return Rewind(self.runtime.ports.journal, self.runtime.ports.files)

    async def rewind(self, number: int | None) -> str:
        rewind = self.rewinder()
        outcome = await rewind.restore(self.session.session_id, number)
        if not outcome.restored:
            shown = ", ".join(posixpath.relpath(c.path, self.workspace) for c in outcome.conflicts)
            return f"Not rewound: {shown} changed since turn {outcome.turn.number}; nothing was restored"
        count = len(outcome.changes)
        return f"Rewound turn {outcome.turn.number}: {count} file{'s' if count != 1 else ''} put back"

    # -- subagents, jobs, skills

    def subagent_runs(self) -> list[SubagentRun]:
        runner = self.session.loop.context.subagents
        return list(runner.runs) if isinstance(runner, Subagents) else []

    def subagent_types(self) -> list[tuple[str, str]]:
        runner = self.session.loop.context.subagents
        if not isinstance(runner, Subagents):
            return []
        return sorted((name, spec.description) for name, spec in runner.types.items())

    async def skills(self) -> list[tuple[str, str]]:
        home = self.runtime.options.home
        catalog = await find_skills(
            self.runtime.ports.files, workspace=self.workspace, home=home if home.startswith("/") else None
        )
        return list(catalog.capabilities())

    def running_jobs(self) -> list[tuple[str, str]]:
        jobs = self.session.jobs
        return [(job.id, job.command) for job in jobs.running] if jobs is not None else []

    async def job_log(self, job_id: str, *, lines: int = 200) -> str:
        jobs = self.session.jobs
        if jobs is None:
            return ""
        return await jobs.tail(jobs.get(job_id), lines=lines)

    async def to_background(self) -> int:
        """Move the commands the turn waits on to the background; how many moved."""
        jobs = self.session.jobs
        return 0 if jobs is None else await jobs.move_waiting_to_background()

    async def switch_model(self, model: str) -> None:
        await self.runtime.switch_model(self.session, model)

    async def switch_thinking(self, text: str) -> str:
        from circle.domain.thinking import parse_level

        try:
            level = parse_level(text)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        sent = await self.runtime.switch_thinking(self.session, level)
        if level is not None and sent is None:
            return f"Thinking {level} is kept, but {self.model} does not reason, so none is sent"
        return f"Thinking: {sent or 'off'}"

    async def models(self) -> list[str]:
        """The endpoint's models (asked of it), else the one in use."""
        return await self.listed_models() or [self.model]

    async def listed_models(self) -> list[str]:
        """The models the endpoint lists (as setup asked it); empty when it lists none or cannot
        be asked, so a name cannot be checked."""
        try:
            return await self.backend.list_models()
        except CircleError:
            return []

    def set_secret(self, name: str, value: str) -> None:
        secrets = self.runtime.options.secrets.with_values(self.backend.save_secret(name, value).values)
        self.runtime.options.secrets = secrets
        self.session.loop.context.secrets = secrets

    async def reload(self) -> list[str]:
        notices = self.backend.reload_policy(self.policy, trusted=self.trusted)
        self.session.loop.settings.system = await self.runtime.system_prompt()
        return notices

    async def close(self) -> list[str]:
        """Stop the jobs and close the runtime; the jobs stopped, as the exit lines name them."""
        stopped = [f"{job_id} ({command})" for job_id, command in self.running_jobs()]
        await asyncio.shield(self.runtime.aclose())
        return stopped


__all__ = ["Host", "ShellOutcome"]
