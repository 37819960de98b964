"""The runtime puts a session together: model, tools, policy, system prompt and store."""

from __future__ import annotations

import asyncio
import contextlib
import platform
import posixpath
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import NoReturn
from uuid import uuid4

from circle.domain.budget import CompactionSettings, RequestBudget
from circle.domain.catalog import ModelInfo
from circle.domain.errors import ConfigError, SessionBusyError, SessionNotFoundError, StorageError
from circle.domain.hooks import HookConfig
from circle.domain.messages import Usage
from circle.domain.redact import redact
from circle.domain.retry import TimeoutPolicy
from circle.domain.sandbox import SandboxPolicy, sandbox_note
from circle.domain.secrets import Secrets
from circle.domain.subagents import SUBAGENT_ONLY
from circle.domain.thinking import ThinkingLevel, level_in, parse_level

from .agent_loop import AgentLoop, LoopSettings
from .approvals import ApprovalPolicy, PlanMode, PlanModeGate, hook_mode
from .code_hooks import Hooks
from .compaction import Compactor
from .context.system_prompt import Environment, PromptOptions, build_system_prompt
from .conversation import Conversation
from .event_bus import EventBus
from .hooks import HookRunner
from .jobs import JobManager
from .model_guard import GuardedModel
from .ports.approver import Approver
from .ports.asker import Asker
from .ports.call_log import CallLog
from .ports.clock import Clock
from .ports.compaction_store import CompactionStore
from .ports.file_journal import FileJournal
from .ports.file_system import FileSystem
from .ports.image_codec import ImageCodec
from .ports.language_servers import LanguageServers
from .ports.model_catalog import ModelCatalog, NoCatalog
from .ports.model_client import ModelClient
from .ports.native_search import NativeSearch
from .ports.process_runner import ProcessRunner
from .ports.session_lease import SessionLease
from .ports.session_store import SessionState, SessionStore
from .ports.spec_cache import SpecCache
from .ports.text_search import TextSearch
from .ports.web import WebClient
from .ports.workspace_snapshots import WorkspaceSnapshots
from .session import AgentSession
from .session_branches import pick_branch
from .skills import find_skills
from .subagents import start_subagents
from .tool_specs import with_kept_specs
from .tools import builtin_tools
from .tools.base import Tool, ToolContext
from .tools.compaction import COMPACT_CONVERSATION
from .tools.plan import plan_mode_in
from .turn_journal import TurnJournal


@dataclass
class RuntimeOptions:
    workspace: str
    model: str
    protocol: str = "openai-chat"
    prompt: PromptOptions = field(default_factory=PromptOptions)
    tools: Iterable[str] | None = None
    exclude_tools: Iterable[str] = ()
    own_tools: Sequence[Tool] = ()
    """Tools the embedding program adds (``circle.Agent(tools=[...])``), beside the built-in ones."""
    max_rounds: int | None = None
    thinking: ThinkingLevel | None = None
    env: dict[str, str] = field(default_factory=dict)
    """The whole environment for commands, secrets stripped; empty means the process's own."""
    budget_usd: float | None = None
    secrets: Secrets = field(default_factory=Secrets)
    """Saved secrets the model writes ``%NAME%`` (secrets.json)."""
    timeouts: TimeoutPolicy | None = None
    """With a policy, every session's model is a :class:`GuardedModel` (retries, deadlines,
    rejected parameters dropped); without one it is used as it is (scripted models, tests)."""
    hooks: HookConfig | None = None
    """hooks.json (the person's, and an approved trusted project's)."""
    code_hooks: Hooks | None = None
    """The embedding program's Python hooks (``circle.Agent(hooks=...)``), run beside hooks.json's."""
    home: str = "~"
    """The person's home folder, for judging commands such as ``rm -rf ~`` and for their own AGENTS.md."""
    data_dir: str | None = None
    """Circle's data folder (APPEND_SYSTEM.md)."""
    sandbox: SandboxPolicy | None = None
    """How the model's commands are sandboxed (the system prompt says so); None: they are not."""
    lease_heartbeat_s: float = 5.0
    """How often the leases of the open sessions are renewed (their TTL is the lease's, 15 s)."""
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    """``compaction`` in settings.json: the threshold and the share kept."""


@dataclass
class Ports:
    model: ModelClient
    store: SessionStore
    files: FileSystem
    search: TextSearch
    processes: ProcessRunner
    approver: Approver
    catalog: ModelCatalog = field(default_factory=NoCatalog)
    images: ImageCodec | None = None
    clock: Clock | None = None
    hook_processes: ProcessRunner | None = None
    """Where hooks run when that is not ``processes`` (which may be sandboxed; hooks are the
    person's own and are not)."""
    lease: SessionLease | None = None
    """Held on every session the runtime opens, so no other Circle process writes it; None: no
    locking (a store only this process uses)."""
    journal: FileJournal | None = None
    """The turn journal of file changes (for a rewind); None: changes are not journaled."""
    snapshots: WorkspaceSnapshots | None = None
    """Workspace snapshots around commands, so their changes are journaled too (with ``journal``)."""
    compactions: CompactionStore | None = None
    """Where compactions are committed (the session store's file); None: sessions never compact
    (requests are still pruned) and compact_conversation is not offered."""
    web: WebClient | None = None
    """What webfetch and websearch use; None: they tell the model the session has no web access."""
    native_search: NativeSearch | None = None
    """The model endpoint's own web search, which websearch tries first; None: DuckDuckGo only."""
    asker: Asker | None = None
    """Who answers the question tool and plan_exit; None where nobody can (print, JSON, RPC)."""
    lsp: LanguageServers | None = None
    """What the lsp tool asks (servers started on demand); None: it says there are none."""
    specs: SpecCache | None = None
    """The built-in tools' specs kept from an earlier run; None: made at each start."""
    calls: CallLog | None = None
    """How far each tool call got, so a reopened session says what a crash lost; None: not kept
    (a call left without a result is called interrupted)."""


def _kept_level(state: SessionState) -> ThinkingLevel | None:
    """The thinking level ``state`` keeps (None: off, or none kept, or one this Circle does not know)."""
    try:
        return parse_level(state.thinking or "off")
    except ValueError:
        return None


class Runtime:
    """Opens sessions; every session it opens shares its ports and its event bus."""

    def __init__(self, ports: Ports, options: RuntimeOptions, *, events: EventBus | None = None) -> None:
        self.ports = ports
        self.options = options
        self.events = events or EventBus()
        self._heartbeat: asyncio.Task[None] | None = None
        self._sessions: list[AgentSession] = []
        self._guarded: GuardedModel | None = None

    @property
    def sessions(self) -> list[AgentSession]:
        """Every session this runtime opened, oldest first."""
        return list(self._sessions)

    def select_tools(self) -> dict[str, Tool]:
        """The main agent's built-in tools, narrowed by --tools and --exclude-tools."""
        return {name: tool for name, tool in self._tool_pool().items() if name not in SUBAGENT_ONLY}

    def _tool_pool(self) -> dict[str, Tool]:
        """The main agent's tools and those only subagents get (wait_jobs, unless excluded)."""
        available = builtin_tools()
        chosen = list(available) if self.options.tools is None else list(self.options.tools)
        chosen += [name for name in available if name in SUBAGENT_ONLY and name not in chosen]
        unknown = [n for n in [*chosen, *self.options.exclude_tools] if n not in available]
        if unknown:
            raise ConfigError(f"unknown tool {unknown[0]!r}: the tools are {', '.join(available)}")
        excluded = set(self.options.exclude_tools)
        if self.ports.compactions is None or not self.options.compaction.enabled:
            excluded.add(COMPACT_CONVERSATION)
        pool = {name: available[name] for name in chosen if name not in excluded}
        for tool in self.options.own_tools:
            if tool.name in available or tool.name in pool:
                raise ConfigError(f"two tools are named {tool.name!r}: give one of them another name")
            pool[tool.name] = tool
        return pool

    async def system_prompt(self) -> str:
        home = self.options.home if self.options.home.startswith("/") else None
        skills = await find_skills(self.ports.files, workspace=self.options.workspace, home=home)
        env = Environment(
            workspace=self.options.workspace,
            platform=f"{platform.system()} {platform.release()}",
            date=time.strftime("%Y-%m-%d"),
            model=self.options.model,
            protocol=self.options.protocol,
            sandbox_note=sandbox_note(self.options.sandbox),
            home=self.options.home if self.options.home.startswith("/") else None,
            data_dir=self.options.data_dir,
            secret_names=tuple(sorted(self.options.secrets.values)),
            capabilities=skills.capabilities(),
        )
        return await build_system_prompt(self.ports.files, env, self.options.prompt)

    async def new_session(self, *, session_id: str | None = None, title: str | None = None) -> AgentSession:
        """A new session in the workspace, stored with its first message (so one left without a
        message leaves nothing behind). Raises StorageError when ``session_id`` is taken."""
        if session_id is not None:
            await self._hold(session_id)  # before it is made, so no other Circle opens it first
            if await self.ports.store.get_session(session_id) is not None:
                raise StorageError(f"session {session_id} already exists")
        new_id = session_id or uuid4().hex
        await self._hold(new_id)
        made = Conversation.new(self.ports.store, new_id, workspace=self.options.workspace, title=title)
        made.state = SessionState(thinking=self.options.thinking or "off")  # kept with its first message
        return await self._session(made)

    async def open_session(
        self, session_id: str, *, at_checkpoint: str | None = None, tail: int | None = None
    ) -> AgentSession:
        """Open a stored session where it went on last (the branch whose head is newest), or from
        ``at_checkpoint`` on a new branch of its own. Raises SessionBusyError while another Circle
        has it open, SessionNotFoundError for an unknown session or checkpoint.

        With ``tail``, only its last ``tail`` messages are read now (what a screen shows): the rest
        are read by the session's first turn or compaction, or by :meth:`Conversation.load`, and
        what depends on them all (plan mode, the thinking level, the session's totals) is settled then.
        """
        info = await self.ports.store.get_session(session_id)
        if info is None:
            await self._refuse_unstored(session_id)
        await self._hold(session_id)
        branch = await pick_branch(self.ports.store, session_id, at_checkpoint=at_checkpoint)
        return await self._session(
            await Conversation.open(
                self.ports.store, session_id, branch=branch, calls=self.ports.calls, tail=tail
            )
        )

    async def _refuse_unstored(self, session_id: str) -> NoReturn:
        """A session not in the store: open in another Circle that has not stored it yet
        (SessionBusyError naming it), or none at all (SessionNotFoundError)."""
        if self.ports.lease is not None and session_id not in {s.session_id for s in self._sessions}:
            await self.ports.lease.acquire(session_id)
            await self.ports.lease.release(session_id)
        raise SessionNotFoundError(f"no session {session_id!r}: `circle sessions` lists them")

    async def fork_session(
        self,
        session_id: str,
        *,
        at_checkpoint: str | None = None,
        new_session_id: str | None = None,
        title: str | None = None,
    ) -> AgentSession:
        """A new session holding the conversation up to ``at_checkpoint`` (None: the head)."""
        info = await self.ports.store.get_session(session_id)
        if info is None:
            raise SessionNotFoundError(f"no session {session_id!r}: `circle sessions` lists them")
        if new_session_id is not None:
            await self._hold(new_session_id)  # before it exists, so no other Circle opens it first
        forked = await self.ports.store.fork(
            session_id, at_checkpoint=at_checkpoint, new_session_id=new_session_id, title=title
        )
        await self._hold(forked.id)
        return await self._session(
            await Conversation.open(self.ports.store, forked.id, calls=self.ports.calls)
        )

    async def continue_session(self, *, tail: int | None = None) -> AgentSession:
        """The workspace's most recent session (``tail`` as for :meth:`open_session`), or a new one
        when it has none."""
        recent = await self.ports.store.list_sessions(workspace=self.options.workspace, limit=1)
        if not recent:
            return await self.new_session()
        return await self.open_session(recent[0].id, tail=tail)

    async def _session(self, conversation: Conversation) -> AgentSession:
        approver = self.ports.approver
        plan = PlanMode(
            active=plan_mode_in(conversation.messages),
            policy=approver if isinstance(approver, ApprovalPolicy) else None,
        )
        jobs = self._job_manager(conversation.session_id)
        context = ToolContext(
            workspace=self.options.workspace,
            files=self.ports.files,
            search=self.ports.search,
            processes=self.ports.processes,
            approver=PlanModeGate(approver, plan),
            env=self.options.env,
            images=self.ports.images,
            secrets=self.options.secrets,
            home=self.options.home,
            journal=self._journal(conversation),
            data_dir=self.options.data_dir,
            jobs=jobs,
            web=self.ports.web,
            native_search=self.ports.native_search,
            asker=self.ports.asker,
            lsp=self.ports.lsp,
            plan_mode=plan,
            plan_file=self.plan_file(conversation.session_id),
        )
        hooks = self._hooks(conversation, hook_mode(approver, plan))
        said: str | None = None
        if hooks is not None:
            source = "resume" if conversation.messages else "startup"
            said = await hooks.session_start(source=source) or None
        kept = conversation.state.thinking is not None  # the level last chosen in it
        recorded, level = (True, _kept_level(conversation.state)) if kept else level_in(conversation.messages)
        if recorded:  # it goes on at the level it was left at, as in plan mode or not
            self.options.thinking = level
        loop = await self._loop(context, hooks, said)
        loop.window.retired = await conversation.spent_apart()
        if guessed := conversation.state.estimated:  # a stopped answer's tokens, guessed, still count
            loop.estimated = guessed
            loop.costs.count_unstored(Usage(output=guessed))
        session = AgentSession(loop, conversation, jobs=jobs)
        if not conversation.complete:
            thinking = self.options.thinking
            conversation.on_loaded(
                lambda: self._settle_loaded(session, plan=plan, thinking=thinking, kept=kept)
            )
        if jobs is not None:  # a background subagent's tokens count in the session's cost
            jobs.on_usage(lambda usage: session.loop.costs.count_unstored(usage))
        session.start_note = said
        self._sessions.append(session)
        return session

    async def _settle_loaded(
        self, session: AgentSession, *, plan: PlanMode, thinking: ThinkingLevel | None, kept: bool
    ) -> None:
        """Once the messages a session opened without are read: plan mode and the thinking level
        as the whole conversation leaves them (unless changed meanwhile; the level only when it
        opened at none ``kept`` with it), and its totals."""
        messages = session.conversation.messages
        if plan.active == plan.told and plan.active != (active := plan_mode_in(messages)):
            plan.active = plan.told = active
        recorded, found = (False, None) if kept else level_in(messages)
        if recorded and found != thinking and self.options.thinking == thinking:
            self._use_thinking(session, found)  # before the turn that read them asks the model
        session.loop.window.retired = await session.conversation.spent_apart()

    async def _loop(self, context: ToolContext, hooks: HookRunner | None, said: str | None) -> AgentLoop:
        """The agent loop for ``options.model`` and ``options.thinking``, with ``context``'s tools."""
        system = await self.system_prompt()
        if said:
            system = f"{system}\n\n# From the session-start hooks\n{said}"
        info = self.ports.catalog.lookup(self.options.model)
        pool = await with_kept_specs(self._tool_pool(), self.ports.specs)
        settings = LoopSettings(
            model=self.options.model,
            system=system,
            max_rounds=self.options.max_rounds,
            thinking=self._thinking_for(info),
            model_info=info,
            budget_usd=self.options.budget_usd,
        )
        context.subagents = await start_subagents(
            pool,
            settings,
            files=self.ports.files,
            store=self.ports.store,
            model=self.session_model(),
            workspace=self.options.workspace,
            home=self.options.home if self.options.home.startswith("/") else None,
            catalog=self.ports.catalog,
            hooks=hooks,
            events=self.events,
        )
        return AgentLoop(
            model=self.session_model(),
            tools={name: tool for name, tool in pool.items() if name not in SUBAGENT_ONLY},
            context=context,
            events=self.events,
            settings=settings,
            catalog=self.ports.catalog,
            hooks=hooks,
            compactor=self._compactor(info),
            calls=self.ports.calls,
        )

    def _thinking_for(self, info: ModelInfo) -> ThinkingLevel | None:
        """The thinking level sent: the chosen one where the model reasons (or is not in the catalog)."""
        return self.options.thinking if info.reasoning or not info.known else None

    async def switch_model(self, session: AgentSession, model: str) -> None:
        """Ask ``model`` from now on, in ``session`` and in the sessions opened later (the same
        endpoint; the thinking level chosen stays). Raises ConfigError while a turn runs."""
        model = model.strip()
        if not model:
            raise ConfigError("no model named: give a model id")
        if session.is_busy:
            raise ConfigError("a turn is running: switch the model when it has ended")
        previous = self.options.model
        self.options.model = model
        old = session.loop
        try:
            session.loop = await self._loop(old.context, old.hooks, session.start_note)
        except BaseException:
            self.options.model = previous
            raise
        session.loop.costs.unstored = old.costs.unstored  # what the session spent so far still counts
        session.loop.estimated = old.estimated
        session.loop.window.retired = old.window.retired

    async def switch_thinking(
        self, session: AgentSession, level: ThinkingLevel | None
    ) -> ThinkingLevel | None:
        """Use thinking ``level`` from now on (also after a model switch), kept with the session so
        it opens again at it; returns the level sent to the session's model (None where it does not
        reason). Raises ConfigError while a turn runs."""
        if session.is_busy:
            raise ConfigError("a turn is running: change the thinking level when it has ended")
        sent = self._use_thinking(session, level)
        conversation = session.conversation
        await conversation.keep_state(replace(conversation.state, thinking=level or "off"))
        return sent

    def _use_thinking(self, session: AgentSession, level: ThinkingLevel | None) -> ThinkingLevel | None:
        self.options.thinking = level
        info = session.loop.settings.model_info or self.ports.catalog.lookup(self.options.model)
        session.loop.settings.thinking = self._thinking_for(info)
        return session.loop.settings.thinking

    def _job_manager(self, session_id: str) -> JobManager | None:
        """The session's background jobs, their output under ``<data>/background_jobs/<id>/``;
        None without a data folder (``execute`` then refuses ``background``)."""
        if self.options.data_dir is None:
            return None
        secrets = self.options.secrets
        return JobManager(
            self.ports.processes,
            self.ports.files,
            folder=posixpath.join(self.options.data_dir, "background_jobs", session_id),
            mask=lambda text: redact(secrets.mask(text)),
            now=self.ports.clock.now if self.ports.clock is not None else time.time,
        )

    async def stop_jobs(self) -> int:
        """Stop the background jobs of every session opened, with their process groups; how many
        were still running."""
        stopped = await asyncio.gather(*(session.stop_jobs() for session in self._sessions))
        return sum(stopped)

    def _compactor(self, info: ModelInfo) -> Compactor | None:
        """What compacts a session's conversation; None without a compaction store or when off."""
        if self.ports.compactions is None or not self.options.compaction.enabled:
            return None
        return Compactor(
            model=self.session_model(),
            store=self.ports.compactions,
            budget=RequestBudget.for_model(
                info.context_window, max_output=info.max_output, settings=self.options.compaction
            ),
            model_name=self.options.model,
            files=self.ports.files,
            data_dir=self.options.data_dir,
            workspace=self.options.workspace,
        )

    def plan_file(self, session_id: str) -> str | None:
        """Where plan_exit writes a session's plan: ``<data folder>/session_plans/<id>.md``."""
        if self.options.data_dir is None:
            return None
        return posixpath.join(self.options.data_dir, "session_plans", f"{session_id}.md")

    def _journal(self, conversation: Conversation) -> TurnJournal | None:
        if self.ports.journal is None:
            return None
        return TurnJournal(
            self.ports.journal,
            session_id=conversation.session_id,
            workspace=self.options.workspace,
            snapshots=self.ports.snapshots,
        )

    def _hooks(self, conversation: Conversation, mode: Callable[[], str]) -> HookRunner | None:
        config = self.options.hooks or HookConfig()
        if not any(config.events.values()) and self.options.code_hooks is None:
            return None
        return HookRunner(
            self.ports.hook_processes or self.ports.processes,
            config,
            code=self.options.code_hooks,
            workspace=self.options.workspace,
            session_id=conversation.session_id,
            env=self.options.env or None,
            permission_mode=mode,
        )

    def session_model(self) -> ModelClient:
        """The model sessions talk to: guarded when ``options.timeouts`` is set, by one guard for
        the endpoint, so what it refused once is learned by every session, subagent and compaction."""
        if self.options.timeouts is None:
            return self.ports.model
        guarded = self._guarded
        if (
            guarded is None
            or guarded.inner is not self.ports.model
            or guarded.timeouts != self.options.timeouts
        ):
            guarded = GuardedModel(
                self.ports.model,
                clock=self.ports.clock,
                timeouts=self.options.timeouts,
                on_retry=self.events.emit,
            )
            self._guarded = guarded
        return guarded

    async def _hold(self, session_id: str) -> None:
        """Take the session's lease and keep it renewed while the runtime lives."""
        if self.ports.lease is None:
            return
        await self.ports.lease.acquire(session_id)
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = asyncio.create_task(self._beat(self.ports.lease))

    async def _beat(self, lease: SessionLease) -> None:
        sleep = self.ports.clock.sleep if self.ports.clock is not None else asyncio.sleep
        while True:
            await sleep(self.options.lease_heartbeat_s)
            try:
                await lease.heartbeat()
            except SessionBusyError:
                return  # taken over: the store refuses this runtime's appends from now on
            except StorageError:
                continue  # the file was busy: the next beat tries again, well within the TTL

    async def leave(self, session: AgentSession) -> bool:
        """The person moved on from ``session`` (another one was opened in its place): its lease
        is given up, so another Circle may open it now, unless it still works (a turn, a background
        job or subagent, whose results it stores): then it is kept until the runtime closes, as
        before. True when it was given up. Held, a session left by /fork, /resume or /new stayed
        closed to every other Circle for as long as this one ran."""
        if session.is_busy or (session.jobs is not None and session.jobs.running):
            return False
        if session in self._sessions:
            self._sessions.remove(session)
        still_open = any(other.session_id == session.session_id for other in self._sessions)
        if self.ports.lease is not None and not still_open:
            with contextlib.suppress(StorageError):  # the store busy: it expires after its TTL
                await self.ports.lease.release(session.session_id)
        return True

    async def release(self) -> None:
        """Stop renewing and give up every lease, so another Circle may open the sessions at once."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
            self._heartbeat = None
        if self.ports.lease is not None:
            await self.ports.lease.release()

    async def aclose(self, *, close_model: bool = True, close_store: bool = True) -> None:
        """Stop every session's background jobs and subagents, give up the leases, and close the
        ports: the language servers, the web client, the journal, the call log, the compaction
        store, and (unless a caller keeps them) the model client and the session store."""
        await self.stop_jobs()
        with contextlib.suppress(StorageError):  # an unreleased lease still expires after its TTL
            await self.release()
        if close_model:
            await self.ports.model.aclose()
        if close_store:
            await self.ports.store.aclose()
        if self.ports.compactions is not None:
            await self.ports.compactions.aclose()
        if self.ports.journal is not None:
            await self.ports.journal.aclose()
        if self.ports.calls is not None:
            await self.ports.calls.aclose()
        if self.ports.web is not None:
            await self.ports.web.aclose()
        if self.ports.lsp is not None:
            await self.ports.lsp.aclose()
