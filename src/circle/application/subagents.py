"""Subagents: ``task`` runs a fresh agent with its own context and returns its final answer.

Types: ``general-purpose`` (the session's tools without task, compact_conversation and plan mode,
plus wait_jobs), ``explore`` (read-only tools; every change refused without asking), and the agent
files found in ``~/.claude/agents``, ``~/.agents/agents``, ``~/.circle/agents`` and the project's
``.circle/agents`` (a later folder wins by name; a file may replace a built-in type; one given
execute gets wait_jobs too).

A subagent's conversation is ephemeral: it lives in memory and in its :class:`SubagentRun`
(``Subagents.runs``), never in the session store. Its tool calls go through the parent's approver
(so approvals apply exactly as to the main agent), its PreToolUse and PostToolUse hooks, and its
file changes are journaled under the parent's current turn.

With ``background`` (:meth:`Subagents.start_task`) the subagent runs as a job of the session's
:class:`~circle.application.jobs.JobManager`: the call returns at once, and the subagent's report
reaches the model as the job's notice. Its tokens go with its report to the job manager, which hands
them to the session (``JobManager.on_usage``), as a foreground subagent's go with its tool output.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal
from uuid import uuid4

from circle.domain.errors import ToolError
from circle.domain.front_matter import FileProblem
from circle.domain.hooks import HookEvent, HookMatcher
from circle.domain.messages import Message, Usage
from circle.domain.subagents import (
    EXPLORE,
    GENERAL_PURPOSE,
    NEVER_GIVEN,
    READ_ONLY_TOOLS,
    SUBAGENT_ONLY,
    SubagentSpec,
)

from .agent_files import AgentFiles, find_agent_files
from .agent_loop import CURRENT_CALL, AgentLoop, Inbox, LoopSettings, TurnResult
from .conversation import Conversation
from .events import AgentEvent, MessageEnded, MessageStarted, MessageUpdated, SubagentEvent
from .hooks import HookRunner
from .jobs import AgentReport
from .ports.approver import ApprovalDecision, ApprovalRequest
from .ports.event_sink import EventSink
from .ports.file_system import FileSystem
from .ports.model_catalog import ModelCatalog
from .ports.model_client import ModelClient
from .ports.session_store import SessionStore
from .prompts import load_prompt
from .tools.base import Tool, ToolContext, ToolOutput
from .tools.task import TASK, described_task
from .turn_journal import TurnJournal

log = logging.getLogger("circle.subagents")
READ_ONLY_REFUSAL = "this subagent is read-only: it cannot change files or run commands"
RunStatus = Literal["running", "done", "incomplete", "failed", "interrupted"]


def builtin_subagents() -> dict[str, SubagentSpec]:
    """general-purpose and explore."""
    return {
        GENERAL_PURPOSE: SubagentSpec(
            name=GENERAL_PURPOSE,
            description=(
                "The main agent's tools but task, compaction and plan mode, with wait_jobs; changes ask."
            ),
            system_prompt=load_prompt("subagents/general-purpose.md"),
        ),
        EXPLORE: SubagentSpec(
            name=EXPLORE,
            description="Read-only: lists, reads and searches files, the web and language servers.",
            system_prompt=load_prompt("subagents/explore.md"),
            tools=tuple(sorted(READ_ONLY_TOOLS)),
            read_only=True,
        ),
    }


@dataclass
class SubagentRun:
    """One subagent's work, kept for people to look at (the strip, its full record)."""

    id: str
    description: str
    subagent_type: str
    prompt: str
    messages: list[Message] = field(default_factory=list)
    answer: str = ""
    usage: Usage = field(default_factory=Usage)
    status: RunStatus = "running"
    error: str | None = None


class _EphemeralConversation(Conversation):
    """A subagent's conversation: in memory only (the store it is given is never written)."""

    async def append(self, message: Message, events: EventSink | None = None) -> str:
        self.messages.append(message)
        checkpoint_id = uuid4().hex
        if events is not None:
            if message.role != "assistant":
                events.emit(MessageStarted(message=message, role=message.role))
            events.emit(MessageEnded(message=message, checkpoint_id=checkpoint_id))
        return checkpoint_id


class RefuseChanges:
    """The approver of a read-only subagent: every change is refused, nobody is asked."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=False, reason=READ_ONLY_REFUSAL)


class _JoinedJournal(TurnJournal):
    """The parent's journal, seen by a subagent: changes go under the parent's current turn."""

    def __init__(self, parent: TurnJournal) -> None:
        super().__init__(
            parent.journal,
            session_id=parent.session_id,
            workspace=parent.workspace,
            snapshots=parent.snapshots,
        )
        self._parent = parent

    def begin(self, turn_id: str | None = None, *, label: str = "") -> None:
        self.turn_id, self.label = self._parent.turn_id, self._parent.label


class _Discard:
    def emit(self, event: AgentEvent) -> None:
        return None


class _Tagged:
    """Hands a subagent's events to the session's sink, tagged with its run; text deltas stay out."""

    def __init__(self, sink: EventSink, run: SubagentRun) -> None:
        self.sink = sink
        self.run = run
        self.parent_call_id = CURRENT_CALL.get()

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, MessageUpdated):
            return
        run = self.run
        self.sink.emit(SubagentEvent(run.id, run.subagent_type, run.description, event, self.parent_call_id))


def _tool_hooks(hooks: HookRunner | None) -> HookRunner | None:
    """The session's hooks without Stop and SessionStart (a subagent's turn is not the session's)."""
    if hooks is None:
        return None
    clone = copy.copy(hooks)
    events: dict[HookEvent, tuple[HookMatcher, ...]] = {
        e: m for e, m in hooks.hooks.events.items() if e in ("PreToolUse", "PostToolUse")
    }
    clone.hooks = replace(hooks.hooks, events=events)
    return clone


class Subagents:
    """Starts the subagents of one session (the ``task`` tool's :class:`SubagentRunner`).

    Args:
        model: The session's model client (shared by its subagents).
        store: The session store (given to the ephemeral conversations, never written).
        tools: The session's tools, which the subagents' sets are drawn from.
        settings: The main agent's loop settings: its system prompt follows the subagent's own.
        agents: Subagents from agent files (they may replace a built-in type).
        problems: Agent files that could not be used.
        events: Where the subagents' events go; None: nowhere (their messages stay in ``runs``).
    """

    def __init__(
        self,
        *,
        model: ModelClient,
        store: SessionStore,
        tools: Mapping[str, Tool],
        settings: LoopSettings,
        agents: Mapping[str, SubagentSpec] | None = None,
        problems: Sequence[FileProblem] = (),
        catalog: ModelCatalog | None = None,
        hooks: HookRunner | None = None,
        events: EventSink | None = None,
    ) -> None:
        self.model = model
        self.store = store
        self.tools = tools
        self.settings = settings
        self.types: dict[str, SubagentSpec] = {**builtin_subagents(), **(agents or {})}
        self.problems = tuple(problems)
        self.catalog = catalog
        self.hooks = _tool_hooks(hooks)
        self.events: EventSink = events or _Discard()
        self.runs: list[SubagentRun] = []

    def tools_for(self, spec: SubagentSpec) -> dict[str, Tool]:
        """The tools a subagent of this kind gets: never task, compact_conversation or plan mode;
        wait_jobs with execute (it may start jobs, and its work ends with its answer)."""
        if spec.tools is None:
            names: Iterable[str] = self.tools
        else:
            names = [*spec.tools, *(SUBAGENT_ONLY if "execute" in spec.tools else ())]
        return {n: self.tools[n] for n in names if n in self.tools and n not in NEVER_GIVEN}

    def context_for(self, spec: SubagentSpec, ctx: ToolContext) -> ToolContext:
        """The parent's context as a subagent of this kind sees it: the same approver (a read-only one
        refuses every change), no hook's allow carried over, no subagents of its own."""
        return replace(
            ctx,
            approver=RefuseChanges() if spec.read_only else ctx.approver,
            hook_allowed=False,
            subagents=None,
            journal=_JoinedJournal(ctx.journal) if ctx.journal is not None else None,
        )

    def _settings(self, spec: SubagentSpec) -> LoopSettings:
        info = self.settings.model_info
        if spec.model is not None and spec.model != self.settings.model:
            info = self.catalog.lookup(spec.model) if self.catalog is not None else None
        return replace(
            self.settings,
            model=spec.model or self.settings.model,
            system=f"{spec.system_prompt}\n\n{self.settings.system}",
            model_info=info,
            budget_usd=None,
        )

    def _spec(self, subagent_type: str) -> SubagentSpec:
        spec = self.types.get(subagent_type) or self.types.get(subagent_type.strip().lower())
        if spec is None:
            raise ToolError(
                f"no subagent type {subagent_type!r}: the types are {', '.join(sorted(self.types))}"
            )
        return spec

    async def run_task(
        self, *, description: str, prompt: str, subagent_type: str, ctx: ToolContext
    ) -> ToolOutput:
        """Run a subagent on ``prompt`` until it answers; its answer is the tool's output."""
        spec = self._spec(subagent_type)
        return await self._run(spec, description=description, prompt=prompt, ctx=ctx)

    async def start_task(
        self, *, description: str, prompt: str, subagent_type: str, ctx: ToolContext
    ) -> ToolOutput:
        """Start a subagent on ``prompt`` as a background job of ``ctx.jobs`` and say so at once.

        Raises:
            ToolError: no job manager, an unknown type, or the most jobs already run.
        """
        if ctx.jobs is None:
            raise ToolError("background jobs are not available in this session: run task without background")
        spec = self._spec(subagent_type)
        label = description.strip() or (prompt.strip().splitlines() or ["a task"])[0][:60]

        async def work() -> AgentReport:
            output = await self._run(spec, description=description, prompt=prompt, ctx=ctx)
            return AgentReport(output.text, failed=output.is_error, usage=output.usage)

        job = await ctx.jobs.start_agent(f"{spec.name}: {label}", work)
        return ToolOutput(
            f"Started {job.id}: the {spec.name} subagent works on {label!r} in the background; its report "
            "will reach you when it ends. list_jobs shows it, stop_job stops it."
        )

    async def _run(
        self, spec: SubagentSpec, *, description: str, prompt: str, ctx: ToolContext
    ) -> ToolOutput:
        run = SubagentRun(
            id=uuid4().hex[:12], description=description, subagent_type=spec.name, prompt=prompt
        )
        self.runs.append(run)
        conversation = _EphemeralConversation(self.store, f"subagent-{run.id}", run.messages)
        loop = AgentLoop(
            model=self.model,
            tools=self.tools_for(spec),
            context=self.context_for(spec, ctx),
            events=_Tagged(self.events, run),
            settings=self._settings(spec),
            catalog=self.catalog,
            hooks=self.hooks,
        )
        result = await loop.run_turn(conversation, prompt, Inbox())
        return _output(run, result)


def _output(run: SubagentRun, result: TurnResult) -> ToolOutput:
    run.answer, run.usage = result.answer, result.usage
    if result.aborted:
        run.status = "interrupted"
        return ToolOutput("the subagent was interrupted", is_error=True, usage=result.usage)
    if result.error is not None:
        run.status, run.error = "failed", result.error.message
        said = f"\n\nIts last answer:\n{result.answer}" if result.answer else ""
        return ToolOutput(
            f"the subagent stopped with an error: {result.error.message}{said}",
            is_error=True,
            usage=result.usage,
        )
    answer = result.answer.strip() or "(the subagent gave no answer)"
    if result.incomplete:
        run.status = "incomplete"
        answer += "\n\n(the subagent's answer is incomplete: it was cut off before it finished)"
        return ToolOutput(answer, usage=result.usage)
    run.status = "done"
    return ToolOutput(answer, usage=result.usage)


async def start_subagents(
    tools: dict[str, Tool],
    settings: LoopSettings,
    *,
    files: FileSystem,
    store: SessionStore,
    model: ModelClient,
    workspace: str,
    home: str | None,
    catalog: ModelCatalog | None = None,
    hooks: HookRunner | None = None,
    events: EventSink | None = None,
) -> Subagents:
    """A session's subagents, its agent files found; ``tools["task"]`` (when offered) is replaced
    by one whose description lists the agent files' subagents. Call it before the loop is made."""
    found = await find_agent_files(files, workspace=workspace, home=home, known_tools=tools)
    for problem in found.problems:
        log.info("agent file not used: %s", problem)
    subagents = Subagents(
        model=model,
        store=store,
        tools=tools,
        settings=settings,
        agents=found.specs,
        problems=found.problems,
        catalog=catalog,
        hooks=hooks,
        events=events,
    )
    if TASK in tools:
        tools[TASK] = described_task(tools[TASK], found.specs.values())
    return subagents


__all__ = [
    "READ_ONLY_REFUSAL",
    "AgentFiles",
    "RefuseChanges",
    "SubagentRun",
    "Subagents",
    "builtin_subagents",
    "find_agent_files",
    "start_subagents",
]
