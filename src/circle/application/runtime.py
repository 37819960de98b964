"""The runtime puts a session together: model, tools, policy, system prompt and store."""

from __future__ import annotations

import platform
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from circle.domain.errors import ConfigError, StorageError
from circle.domain.hooks import HookConfig
from circle.domain.retry import TimeoutPolicy
from circle.domain.secrets import Secrets
from circle.domain.thinking import ThinkingLevel

from .agent_loop import AgentLoop, LoopSettings
from .context.system_prompt import Environment, PromptOptions, build_system_prompt
from .conversation import Conversation
from .event_bus import EventBus
from .hooks import HookRunner
from .model_guard import GuardedModel
from .ports.approver import Approver
from .ports.clock import Clock
from .ports.file_system import FileSystem
from .ports.image_codec import ImageCodec
from .ports.model_catalog import ModelCatalog, NoCatalog
from .ports.model_client import ModelClient
from .ports.process_runner import ProcessRunner
from .ports.session_store import SessionStore
from .ports.text_search import TextSearch
from .session import AgentSession
from .tools import builtin_tools
from .tools.base import Tool, ToolContext


@dataclass
class RuntimeOptions:
    workspace: str
    model: str
    protocol: str = "openai-chat"
    prompt: PromptOptions = field(default_factory=PromptOptions)
    tools: Iterable[str] | None = None
    exclude_tools: Iterable[str] = ()
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
    home: str = "~"
    """The person's home folder, for judging commands such as ``rm -rf ~``."""


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


class Runtime:
    """Opens sessions; every session it opens shares its ports and its event bus."""

    def __init__(self, ports: Ports, options: RuntimeOptions, *, events: EventBus | None = None) -> None:
        self.ports = ports
        self.options = options
        self.events = events or EventBus()

    def select_tools(self) -> dict[str, Tool]:
        """The built-in tools, narrowed by --tools and --exclude-tools."""
        available = builtin_tools()
        chosen = list(available) if self.options.tools is None else list(self.options.tools)
        unknown = [n for n in [*chosen, *self.options.exclude_tools] if n not in available]
        if unknown:
            raise ConfigError(f"unknown tool {unknown[0]!r}: the tools are {', '.join(available)}")
        excluded = set(self.options.exclude_tools)
        return {name: available[name] for name in chosen if name not in excluded}

    async def system_prompt(self) -> str:
        env = Environment(
            workspace=self.options.workspace,
            platform=f"{platform.system()} {platform.release()}",
            date=time.strftime("%Y-%m-%d"),
            model=self.options.model,
            protocol=self.options.protocol,
        )
        return await build_system_prompt(self.ports.files, env, self.options.prompt)

    async def new_session(self, *, session_id: str | None = None, title: str | None = None) -> AgentSession:
        info = await self.ports.store.create_session(
            workspace=self.options.workspace, session_id=session_id, title=title
        )
        return await self._session(Conversation(self.ports.store, info.id, []))

    async def open_session(self, session_id: str) -> AgentSession:
        info = await self.ports.store.get_session(session_id)
        if info is None:
            raise StorageError(f"no session {session_id!r}: `circle sessions` lists them")
        return await self._session(await Conversation.open(self.ports.store, session_id))

    async def continue_session(self) -> AgentSession:
        """The workspace's most recent session, or a new one when it has none."""
        recent = await self.ports.store.list_sessions(workspace=self.options.workspace, limit=1)
        if not recent:
            return await self.new_session()
        return await self.open_session(recent[0].id)

    async def _session(self, conversation: Conversation) -> AgentSession:
        context = ToolContext(
            workspace=self.options.workspace,
            files=self.ports.files,
            search=self.ports.search,
            processes=self.ports.processes,
            approver=self.ports.approver,
            env=self.options.env,
            images=self.ports.images,
            secrets=self.options.secrets,
            home=self.options.home,
        )
        hooks = self._hooks(conversation)
        system = await self.system_prompt()
        if hooks is not None:
            source = "resume" if conversation.messages else "startup"
            if said := await hooks.session_start(source=source):
                system = f"{system}\n\n# From the session-start hooks\n{said}"
        info = self.ports.catalog.lookup(self.options.model)
        thinking = self.options.thinking if info.reasoning or not info.known else None
        loop = AgentLoop(
            model=self.session_model(),
            tools=self.select_tools(),
            context=context,
            events=self.events,
            settings=LoopSettings(
                model=self.options.model,
                system=system,
                max_rounds=self.options.max_rounds,
                thinking=thinking,
                model_info=info,
                budget_usd=self.options.budget_usd,
            ),
            catalog=self.ports.catalog,
            hooks=hooks,
        )
        return AgentSession(loop, conversation)

    def _hooks(self, conversation: Conversation) -> HookRunner | None:
        config = self.options.hooks
        if config is None or not any(config.events.values()):
            return None
        return HookRunner(
            self.ports.processes,
            config,
            workspace=self.options.workspace,
            session_id=conversation.session_id,
            env=self.options.env or None,
        )

    def session_model(self) -> ModelClient:
        """The model a new session talks to: guarded when ``options.timeouts`` is set."""
        if self.options.timeouts is None:
            return self.ports.model
        return GuardedModel(
            self.ports.model,
            clock=self.ports.clock,
            timeouts=self.options.timeouts,
            on_retry=self.events.emit,
        )

    async def aclose(self) -> None:
        await self.ports.model.aclose()
        await self.ports.store.aclose()
