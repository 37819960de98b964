"""``circle.Agent``: the same agent loop for another program, as a library.

It is put together as print, line, RPC and the interface are (:func:`.headless.make_config`, then
:func:`.headless.assemble`), from the same settings: trust, the approval mode and approvals.json,
hooks.json, secrets, thinking, compaction and the sandbox. An argument overrides its setting.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import TracebackType

from circle.application.agent_loop import TurnResult
from circle.application.code_hooks import Hooks
from circle.application.events import AgentEvent
from circle.application.ports.model_client import ModelClient
from circle.application.ports.session_store import SessionInfo, SessionStore
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.application.tools.base import Tool
from circle.domain.errors import ConfigError, TurnCancelledError, UntrustedFolderError
from circle.domain.messages import Message

from ._approver import LIBRARY_HINTS, ApproverLike, as_approver
from ._library_parts import attach, check_choices, private_data_dir, split_tools
from ._library_sessions import choose_session, fork_point, list_sessions, opens_stored
from ._options import RunOptions
from ._override import NONE, OverrideDescriptor, Overrides, in_force
from .container import Container, trust_list_at
from .headless import assemble, make_config, open_session, settle_trust

log = logging.getLogger("circle")


class Agent:
    """A Circle agent working in one folder, under the person's own settings and safety rules.

    Example::

        async with circle.Agent("repo", model="gpt-4o-mini") as agent:
            result = await agent.run("What does main.py do?")
            print(result.answer)

    It is built as ``circle -p`` builds its agent: the folder must be trusted (``circle trust
    FOLDER``, or ``trust=True``); the person's settings.json, approvals.json, hooks.json and
    secrets.json apply, and a trusted project's ``.circle/`` files as they do in print mode. A call
    that asks (the ``default`` approval mode asks for every change but known read-only commands)
    goes to ``approver``; with none, it is refused and the model told why, as in print mode.
    ``approval_mode="auto"`` lets everything run but what asks in every mode. Settings are read
    when the agent starts (``async with``, or the first :meth:`run`); errors in them raise then.

    Args:
        workspace: the folder the tools work in.
        model: the model id (else ``CIRCLE_MODEL`` or settings.json; ``"scripted"`` with a
            ``model_client`` and no model named).
        base_url, api_key, protocol: the endpoint (else the environment and settings.json).
        model_client: any :class:`~circle.application.ports.model_client.ModelClient`, for example
            ``circle.testing.ScriptedModel``; replaces the endpoint and stays the caller's to close.
        store: a session store (the caller's to close); by default circle.sqlite in the data folder
            (``CIRCLE_HOME``).
        approver: who answers a call that asks: an :class:`circle.Approver` (an object with
            ``async decide(request)``) or an async function of a :class:`circle.ApprovalRequest`;
            either returns a :class:`circle.ApprovalDecision`. None: such calls are refused. A
            decision that allows with changed ``arguments`` runs the changed call, checked against
            the tool's schema and judged again by the hooks and the rules.
        hooks: Python hooks (:class:`circle.Hooks`), run beside hooks.json's with their semantics.
        approval_mode: ``"default"``, ``"accept-edits"``, ``"read-only"`` or ``"auto"`` (else
            ``approval_mode`` in settings.json, else ``"default"``).
        trust: trust the workspace for this agent without recording it, as the person would with
            ``circle trust``; False: it must be trusted already, else UntrustedFolderError.
        session_id: open this stored session (``ID``, or ``ID:CHECKPOINT`` to go on from that
            message on a branch of its own) instead of starting a new one.
        continue_session: open the workspace's most recent session (a new one if it has none).
        fork_from: start a new session holding a copy of this one (``ID`` or ``ID:CHECKPOINT``);
            ``fork_at=N`` keeps only its first N messages, as :attr:`messages` counts them.
        tools: built-in tool names (only these, with the Python tools given) and tools made with
            :func:`circle.tool`, which are added to the built-in ones; ``exclude_tools`` leaves
            built-in ones out.
        system_prompt, append_system_prompt: replace or extend the system prompt.
        thinking: the thinking level (else ``thinking`` in settings.json).
        max_turns: stop a turn after this many tool rounds.
        max_budget_usd: stop when the session has cost this much (else ``budget_usd`` in settings.json).
        sandbox: run commands under bubblewrap: ``"read-only"`` or ``"workspace-write"`` (else
            ``sandbox`` in settings.json; ``"off"`` by default). Where bwrap cannot start, starting
            the agent raises :class:`~circle.domain.errors.ConfigError` rather than run unsandboxed.

    Failures raise from the error tree (:class:`circle.CircleError` and beneath it): see
    :meth:`run`. For tests, :meth:`override` swaps the model, store or approver.

    Raises:
        ConfigError: the workspace is not a folder, an approval mode or thinking level is unknown,
            or more than one of ``session_id``, ``continue_session`` and ``fork_from`` is given.
        TypeError: ``approver`` is neither an Approver nor an async function, or an item of
            ``tools`` is neither a name nor a tool.
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
        approver: ApproverLike | None = None,
        hooks: Hooks | None = None,
        approval_mode: str | None = None,
        trust: bool = False,
        session_id: str | None = None,
        continue_session: bool = False,
        fork_from: str | None = None,
        fork_at: int | None = None,
        tools: Sequence[str | Tool] | None = None,
        exclude_tools: Sequence[str] = (),
        system_prompt: str | None = None,
        append_system_prompt: str | None = None,
        thinking: str | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        sandbox: str | None = None,
    ) -> None:
        folder = Path(workspace).resolve()
        if not folder.is_dir():
            raise ConfigError(f"the workspace {folder} is not a folder")
        self._env = dict(os.environ)
        for key, value in (
            ("CIRCLE_BASE_URL", base_url),
            ("CIRCLE_API_KEY", api_key),
            ("CIRCLE_PROTOCOL", protocol),
        ):
            if value is not None:
                self._env[key] = value
        check_choices(approval_mode, thinking)
        names, self._own_tools = split_tools(tools)
        self._opts = RunOptions(
            workspace=folder,
            message="",
            model=model,
            approval_mode=approval_mode,
            system_prompt=system_prompt,
            append_system_prompt=append_system_prompt,
            tools=names,
            exclude_tools=list(exclude_tools),
            thinking=thinking,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
            sandbox=sandbox,
        )
        choose_session(
            self._opts, session_id=session_id, continue_session=continue_session, fork_from=fork_from
        )
        self._fork_at = fork_at
        if hooks is not None and not isinstance(hooks, Hooks):
            raise TypeError(f"hooks must be a circle.Hooks, got {hooks!r}")
        self._hooks = hooks
        as_approver(approver)  # a wrong kind of approver fails here, not at the first call
        self._given = Overrides(model=model_client, store=store, approver=approver)
        self._in_use = NONE
        """What the running agent was started with: its arguments under any override."""
        self.own_overrides = NONE
        self._trust = trust
        self._runtime: Runtime | None = None
        self._session: AgentSession | None = None
        self._kept: list[Message] = []
        """The conversation as it was when the agent last closed."""

    override = OverrideDescriptor()

    @property
    def started(self) -> bool:
        """:meth:`start` has put the agent together (and it has not closed since)."""
        return self._runtime is not None

    @property
    def session_id(self) -> str | None:
        """The session's id: the one opened or forked once the agent has started, a new session's
        once its first turn has begun, or the ``session_id`` given; None before that. Once the
        agent has closed it is the session it had, which it goes on with if started again."""
        if self._session is not None:
            return self._session.session_id
        return self._opts.session.partition(":")[0] if self._opts.session else None

    @property
    def messages(self) -> list[Message]:
        """The conversation so far, oldest first: the person's messages (``role`` ``"user"``), the
        model's answers (``"assistant"``, with ``tool_calls``) and tool results (``"tool"``; their
        ``text`` is what the tool returned). An opened session's messages are there once the agent
        has started, and stay once it has closed. A copy: changing it changes nothing stored."""
        if self._session is None:
            return list(self._kept)
        return list(self._session.conversation.messages)

    @classmethod
    async def sessions(
        cls,
        workspace: str | os.PathLike[str] = ".",
        *,
        all_workspaces: bool = False,
        store: SessionStore | None = None,
        limit: int = 50,
    ) -> list[SessionInfo]:
        """The stored sessions of ``workspace`` (or of every folder), newest first.

        Each :class:`circle.SessionInfo` has ``id``, ``title`` (the first message's first line),
        ``name``, ``workspace``, ``created_at`` and ``updated_at`` (seconds since the epoch) and
        ``message_count``. Pass an ``id`` as ``session_id=`` or ``fork_from=`` to open it.

        Args:
            workspace: the folder whose sessions are listed.
            all_workspaces: list every folder's sessions instead.
            store: the store to read (else circle.sqlite in the data folder, or an override's).
            limit: at most this many.
        """
        chosen = store if store is not None else in_force(_NOBODY).store
        folder = None if all_workspaces else workspace
        return await list_sessions(folder, store=chosen, env=os.environ, limit=limit)

    async def start(self) -> None:
        """Read the settings and put the agent together (``async with`` and :meth:`run` do it).

        Raises:
            UntrustedFolderError: the workspace is not trusted and ``trust`` is False.
            ConfigError: a settings file is bad, no model is chosen, or commands cannot be sandboxed.
        """
        if self._runtime is not None:
            return
        data = private_data_dir(self._env)
        folder = self._opts.workspace
        if not self._trust and not await settle_trust(trust_list_at(data), folder):
            raise UntrustedFolderError(
                f"{folder} is not trusted: run `circle trust {folder}` first, or pass trust=True"
            )
        use = self._in_use = in_force(self).over(self._given)
        opts = self._opts
        if opts.model is None and use.model is not None:
            opts = dataclasses.replace(opts, model=self._env.get("CIRCLE_MODEL") or "scripted")
        config = await make_config(opts, self._env, project_trusted=True, probe=use.model is None)
        container = Container(config=config)
        if use.model is not None:
            config.options.timeouts = None  # a client given is used as it is: no retries or deadlines
            container.model.override(use.model)
        config.options.own_tools = self._own_tools
        config.options.code_hooks = self._hooks
        if use.store is not None:
            container.store.override(use.store)
            container.lease.override(None)  # leases live in the SQLite store (the default one)
        runtime, _, notices = assemble(
            container, trusted=True, person=as_approver(use.approver), hints=LIBRARY_HINTS
        )
        for notice in notices:
            log.warning("%s", notice)
        self._runtime = runtime
        if opens_stored(self._opts):
            try:
                await fork_point(runtime.ports.store, self._opts, self._fork_at)
                self._session = await open_session(runtime, self._opts)
            except BaseException:
                await self.aclose()
                raise

    async def _ensure(self) -> tuple[Runtime, AgentSession]:
        await self.start()
        assert self._runtime is not None
        if self._session is None:
            self._session = await self._runtime.new_session()
        return self._runtime, self._session

    async def run(self, prompt: str, *, files: Sequence[str] = ()) -> TurnResult:
        """Run one turn and return its result (``answer``, ``usage``, ``cost``, ``incomplete``…).

        What the turn did before it failed stays in the session (:attr:`messages`).

        Args:
            prompt: The message.
            files: Paths (relative to the workspace, or absolute) attached as ``@file`` is: text in
                front of the message, images and PDFs as media after it.

        Raises:
            ModelError: the endpoint failed (``ModelHTTPError`` with its ``status``,
                ``RateLimitedError``, ``ModelConnectionError``, ``ContextOverflowError``…), after
                the retries the settings allow.
            UsageLimitError: the session budget is spent; ``TurnLimitError`` (beneath it): the
                turn reached ``max_turns`` tool rounds.
            TurnCancelledError: :meth:`cancel` stopped the turn.
            AttachmentError: a file is missing, binary or over its size limit.
            UntrustedFolderError, ConfigError, SessionNotFoundError: as :meth:`start` raises them.
            StorageError: the session store could not write (``SessionBusyError``: another Circle
                has the session open).
        """
        runtime, session = await self._ensure()
        attached = await attach(runtime, files)
        return _raised(await session.prompt(prompt, attached=attached))

    async def stream(self, prompt: str, *, files: Sequence[str] = ()) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events as they happen (``TurnEnded`` ends the turn, then
        ``AgentEnded``); ``files`` are attached as :meth:`run` attaches them. A turn that fails
        raises as :meth:`run` does, after its last events (``ErrorReported``, ``TurnEnded``,
        ``AgentEnded``)."""
        runtime, session = await self._ensure()
        attached = await attach(runtime, files)
        queue: asyncio.Queue[AgentEvent] = asyncio.Queue()

        class _Sink:
            def emit(self, event: AgentEvent) -> None:
                queue.put_nowait(event)

        sink = _Sink()
        runtime.events.subscribe(sink)
        task = asyncio.create_task(session.prompt(prompt, attached=attached))
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
            _raised(await task)
        finally:
            runtime.events.unsubscribe(sink)
            if not task.done():
                session.cancel()
                await asyncio.gather(task, return_exceptions=True)

    def steer(self, text: str) -> None:
        """Add a message the model reads before its next request in the running turn."""
        if self._session is not None:
            self._session.steer(text)

    def follow_up(self, text: str) -> None:
        """Queue a message that starts a new turn when the running one ends."""
        if self._session is not None:
            self._session.follow_up(text)

    def cancel(self) -> bool:
        """Stop the running turn (a running command is killed); True if one ran. The turn's
        :meth:`run` raises :class:`circle.TurnCancelledError`; what it did stays in the session."""
        return self._session.cancel() if self._session else False

    async def aclose(self) -> None:
        """Stop what the agent started and close what it opened: background jobs and subagents
        (with their process groups), language servers, the web client, the stores. A model client
        or store passed in stays open: it is the caller's."""
        if self._session is not None and self._session.conversation.messages:  # to go on with, later
            self._kept = list(self._session.conversation.messages)
            choose_session(
                self._opts, session_id=self._session.session_id, continue_session=False, fork_from=None
            )
            self._fork_at = None
        if self._runtime is not None:
            runtime, self._runtime, self._session = self._runtime, None, None
            use, self._in_use = self._in_use, NONE
            await runtime.aclose(close_model=use.model is None, close_store=use.store is None)

    async def __aenter__(self) -> Agent:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


async def sessions(
    workspace: str | os.PathLike[str] = ".",
    *,
    all_workspaces: bool = False,
    store: SessionStore | None = None,
    limit: int = 50,
) -> list[SessionInfo]:
    """The stored sessions of ``workspace`` (or of every folder), newest first: the same as
    :meth:`Agent.sessions`, whose arguments it takes."""
    return await Agent.sessions(workspace, all_workspaces=all_workspaces, store=store, limit=limit)


class _NoAgent:
    """Stands for no agent where only every agent's overrides apply."""

    own_overrides = NONE
    started = False


_NOBODY = _NoAgent()


def _raised(result: TurnResult) -> TurnResult:
    """``result``, or the error it ended with raised (a stopped turn: TurnCancelledError)."""
    if result.error is not None:
        raise result.error
    if result.aborted:
        raise TurnCancelledError("the turn was cancelled; what it did is kept in the session")
    return result
