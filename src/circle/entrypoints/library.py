"""``circle.Agent``: the same agent loop for another program, as a library."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import TracebackType

from circle.adapters._shared.settings_files import (
    data_dir,
    load_credentials,
    load_dotenv_texts,
    load_rule_layers,
    load_secrets,
    load_settings,
)
from circle.application.agent_loop import TurnResult
from circle.application.approvals import AllowAll, ApprovalPolicy
from circle.application.attachments import MediaPart, attach_files
from circle.application.context.system_prompt import PromptOptions
from circle.application.events import AgentEvent
from circle.application.ports.approver import Approver
from circle.application.ports.model_client import ModelClient
from circle.application.ports.session_store import SessionStore
from circle.application.runtime import Runtime, RuntimeOptions
from circle.application.session import AgentSession
from circle.domain.budget import CompactionSettings
from circle.domain.errors import ConfigError
from circle.domain.retry import TimeoutPolicy
from circle.domain.secrets import Secrets, dotenv_values, own_keys, scrub_environment
from circle.domain.settings import resolve_endpoint

from .container import Config, Container, build_runtime, sandbox_from, sandbox_problem


class Agent:
    """A Circle agent working in one folder.

    Example::

        async with circle.Agent(workspace="repo", model="gpt-4o-mini") as agent:
            result = await agent.run("What does main.py do?")
            print(result.answer)

    Args:
        workspace: the folder the tools work in.
        model: the model id (else ``CIRCLE_MODEL`` or settings.json).
        base_url, api_key, protocol: the endpoint (else the environment and settings.json).
        model_client: any :class:`~circle.application.ports.model_client.ModelClient`, for example
            ``circle.testing.ScriptedModel``; replaces the endpoint.
        store: a session store; by default circle.sqlite in the data folder (``CIRCLE_HOME``).
        approver: the person (or program) asked when a change needs approval; the default
            approval mode and the person's approvals.json apply first. Without one, everything may
            run (always-refused commands and credential files are refused all the same).
        session_id: continue this stored session instead of starting a new one.
        tools: only these built-in tools; ``exclude_tools`` leaves some out.
        system_prompt, append_system_prompt: replace or extend the system prompt.
        max_turns: stop a turn after this many tool rounds.
        max_budget_usd: stop when the session has cost this much (else ``budget_usd`` in settings.json).
        sandbox: run commands under bubblewrap: ``"read-only"`` or ``"workspace-write"`` (else
            ``sandbox`` in settings.json; ``"off"`` by default). Where bwrap cannot start this
            raises :class:`~circle.domain.errors.ConfigError` rather than run commands unsandboxed.
    """

    def __init__(
        self,
        workspace: str | os.PathLike[str] = ".",
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        protocol: str | None = None,
        model_client: ModelClient | None = None,
        store: SessionStore | None = None,
        approver: Approver | None = None,
        session_id: str | None = None,
        tools: Sequence[str] | None = None,
        exclude_tools: Sequence[str] = (),
        system_prompt: str | None = None,
        append_system_prompt: str | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        sandbox: str | None = None,
    ) -> None:
        env = dict(os.environ)
        for key, value in (
            ("CIRCLE_BASE_URL", base_url),
            ("CIRCLE_API_KEY", api_key),
            ("CIRCLE_PROTOCOL", protocol),
        ):
            if value is not None:
                env[key] = value
        folder = Path(workspace).resolve()
        if not folder.is_dir():
            raise ConfigError(f"the workspace {folder} is not a folder")
        data = data_dir(env)
        settings = load_settings(data, folder)
        credentials = load_credentials(data)
        endpoint = resolve_endpoint(settings, env, credentials, model_override=model)
        secrets = Secrets(
            load_secrets(data), hidden=own_keys(env, credentials, keys=[endpoint.api_key, *_dotenv(folder)])
        )
        options = RuntimeOptions(
            workspace=str(folder),
            model=endpoint.model or ("scripted" if model_client else ""),
            protocol=endpoint.protocol,
            prompt=PromptOptions(replace=system_prompt, append=append_system_prompt),
            tools=tools,
            exclude_tools=exclude_tools,
            max_rounds=max_turns,
            budget_usd=max_budget_usd if max_budget_usd is not None else settings.budget_usd,
            timeouts=None if model_client is not None else TimeoutPolicy.from_env(env),
            secrets=secrets,
            env=scrub_environment(env, secrets),
            home=str(Path.home()),
            sandbox=sandbox_from(sandbox, settings, workspace=folder, data_dir=data),
            data_dir=str(data),
            compaction=CompactionSettings(
                threshold=settings.compaction.threshold,
                keep=settings.compaction.keep,
                enabled=settings.compaction.enabled,
            ),
        )
        if not options.model:
            raise ConfigError("no model chosen: pass model=..., or set CIRCLE_MODEL")
        config = Config(
            folder, data, endpoint, options, env=env, model_overrides=settings.models, net=settings.net
        )
        if (problem := sandbox_problem(config)) is not None:
            raise ConfigError(problem)
        self._container = Container(config=config)
        if model_client is not None:
            self._container.model.override(model_client)
        if store is not None:
            self._container.store.override(store)
            self._container.lease.override(None)  # leases live in the SQLite store (the default one)
        if approver is None:
            self._container.approver.override(AllowAll())
        else:
            policy = ApprovalPolicy("default", load_rule_layers(data), person=approver)
            self._container.approver.override(policy)
        self._session_id = session_id
        self._owns_model = model_client is None
        self._owns_store = store is None
        self._runtime: Runtime | None = None
        self._session: AgentSession | None = None

    @property
    def session_id(self) -> str | None:
        return self._session.session_id if self._session else self._session_id

    async def _ensure(self) -> AgentSession:
        if self._session is None:
            self._runtime = build_runtime(self._container)
            if self._session_id:
                self._session = await self._runtime.open_session(self._session_id)
            else:
                self._session = await self._runtime.new_session()
        return self._session

    async def run(self, prompt: str, *, files: Sequence[str] = ()) -> TurnResult:
        """Run one turn and return its result (``answer``, ``usage``, ``error``…).

        Args:
            prompt: The message.
            files: Paths (relative to the workspace, or absolute) attached as ``@file`` is: text in
                front of the message, images and PDFs as media after it.

        Raises:
            AttachmentError: A file is missing, binary or over its size limit.
        """
        session = await self._ensure()
        text, media = await self._attach(prompt, files)
        return await session.prompt(text, media=media)

    async def _attach(self, prompt: str, files: Sequence[str]) -> tuple[str, tuple[MediaPart, ...]]:
        assert self._runtime is not None
        if not files:
            return prompt, ()
        ports = self._runtime.ports
        attached = await attach_files(
            files, workspace=self._runtime.options.workspace, files=ports.files, images=ports.images
        )
        return attached.text(prompt), attached.media

    async def stream(self, prompt: str, *, files: Sequence[str] = ()) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events as they happen (the last is ``TurnEnded``); ``files``
        are attached as :meth:`run` attaches them."""
        session = await self._ensure()
        assert self._runtime is not None
        prompt, media = await self._attach(prompt, files)
        queue: asyncio.Queue[AgentEvent] = asyncio.Queue()

        class _Sink:
            def emit(self, event: AgentEvent) -> None:
                queue.put_nowait(event)

        sink = _Sink()
        self._runtime.events.subscribe(sink)
        task = asyncio.create_task(session.prompt(prompt, media=media))
        try:
            while not task.done():
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            while not queue.empty():
                yield queue.get_nowait()
            await task
        finally:
            self._runtime.events.unsubscribe(sink)
            if not task.done():
                session.cancel()
                await asyncio.gather(task, return_exceptions=True)

    def steer(self, text: str) -> None:
        if self._session is not None:
            self._session.steer(text)

    def follow_up(self, text: str) -> None:
        if self._session is not None:
            self._session.follow_up(text)

    def cancel(self) -> bool:
        return self._session.cancel() if self._session else False

    async def aclose(self) -> None:
        """Close what the agent made; a model client or store passed in stays the caller's."""
        if self._runtime is not None:
            await self._runtime.release()
            if self._owns_model:
                await self._runtime.ports.model.aclose()
            if self._owns_store:
                await self._runtime.ports.store.aclose()
            self._runtime = None
            self._session = None

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _dotenv(workspace: Path | str) -> list[str]:
    """The values of the workspace's dotenv files, hidden from the model in every output."""
    return [value for text in load_dotenv_texts(Path(workspace)) for value in dotenv_values(text)]
