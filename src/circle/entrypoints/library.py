"""``circle.Agent``: the same agent loop for another program, as a library.

It is put together as print, line, RPC and the interface are (:func:`.headless.make_config`, then
:func:`.headless.assemble`), from the same settings: trust, the approval mode and approvals.json,
hooks.json, secrets, thinking, compaction and the sandbox. An argument overrides its setting.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import TracebackType

from circle.adapters._shared.private_files import private_folder
from circle.adapters._shared.settings_files import data_dir
from circle.application.agent_loop import TurnResult
from circle.application.approvals import parse_mode
from circle.application.attachments import MediaPart, attach_files
from circle.application.events import AgentEvent
from circle.application.ports.model_client import ModelClient
from circle.application.ports.session_store import SessionStore
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.application.tools.base import Tool
from circle.domain.errors import ConfigError, UntrustedFolderError
from circle.domain.thinking import parse_level

from ._approver import ApproverLike, as_approver
from ._options import RunOptions
from .container import Container, trust_list_at
from .headless import assemble, make_config, settle_trust

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
            either returns a :class:`circle.ApprovalDecision`. None: such calls are refused.
        approval_mode: ``"default"``, ``"accept-edits"``, ``"read-only"`` or ``"auto"`` (else
            ``approval_mode`` in settings.json, else ``"default"``).
        trust: trust the workspace for this agent without recording it, as the person would with
            ``circle trust``; False: it must be trusted already, else UntrustedFolderError.
        session_id: continue this stored session instead of starting a new one.
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

    Raises:
        ConfigError: the workspace is not a folder, or an approval mode or thinking level is unknown.
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
        approval_mode: str | None = None,
        trust: bool = False,
        session_id: str | None = None,
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
        if model is None and model_client is not None:
            model = self._env.get("CIRCLE_MODEL") or "scripted"
        _check(approval_mode, thinking)
        names, self._own_tools = _split_tools(tools)
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
        self._person = as_approver(approver)
        self._trust = trust
        self._model_client = model_client
        self._store = store
        self._session_id = session_id
        self._runtime: Runtime | None = None
        self._session: AgentSession | None = None

    @property
    def session_id(self) -> str | None:
        """The session's id once the first turn has started it (or the one given to continue)."""
        return self._session.session_id if self._session else self._session_id

    async def start(self) -> None:
        """Read the settings and put the agent together (``async with`` and :meth:`run` do it).

        Raises:
            UntrustedFolderError: the workspace is not trusted and ``trust`` is False.
            ConfigError: a settings file is bad, no model is chosen, or commands cannot be sandboxed.
        """
        if self._runtime is not None:
            return
        data = _private_data_dir(self._env)
        folder = self._opts.workspace
        if not self._trust and not await settle_trust(trust_list_at(data), folder):
            raise UntrustedFolderError(
                f"{folder} is not trusted: run `circle trust {folder}` first, or pass trust=True"
            )
        config = await make_config(
            self._opts, self._env, project_trusted=True, probe=self._model_client is None
        )
        container = Container(config=config)
        if self._model_client is not None:
            config.options.timeouts = None  # a client given is used as it is: no retries or deadlines
            container.model.override(self._model_client)
        config.options.own_tools = self._own_tools
        if self._store is not None:
            container.store.override(self._store)
            container.lease.override(None)  # leases live in the SQLite store (the default one)
        runtime, _, notices = assemble(container, trusted=True, person=self._person)
        for notice in notices:
            log.warning("%s", notice)
        self._runtime = runtime

    async def _ensure(self) -> tuple[Runtime, AgentSession]:
        await self.start()
        assert self._runtime is not None
        if self._session is None:
            if self._session_id:
                self._session = await self._runtime.open_session(self._session_id)
            else:
                self._session = await self._runtime.new_session()
        return self._runtime, self._session

    async def run(self, prompt: str, *, files: Sequence[str] = ()) -> TurnResult:
        """Run one turn and return its result (``answer``, ``usage``, ``error``…).

        Args:
            prompt: The message.
            files: Paths (relative to the workspace, or absolute) attached as ``@file`` is: text in
                front of the message, images and PDFs as media after it.

        Raises:
            AttachmentError: A file is missing, binary or over its size limit.
        """
        runtime, session = await self._ensure()
        text, media = await _attach(runtime, prompt, files)
        return await session.prompt(text, media=media)

    async def stream(self, prompt: str, *, files: Sequence[str] = ()) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events as they happen (the last is ``TurnEnded``); ``files``
        are attached as :meth:`run` attaches them."""
        runtime, session = await self._ensure()
        prompt, media = await _attach(runtime, prompt, files)
        queue: asyncio.Queue[AgentEvent] = asyncio.Queue()

        class _Sink:
            def emit(self, event: AgentEvent) -> None:
                queue.put_nowait(event)

        sink = _Sink()
        runtime.events.subscribe(sink)
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
        """Stop the running turn (a running command is killed); True if one ran."""
        return self._session.cancel() if self._session else False

    async def aclose(self) -> None:
        """Stop what the agent started and close what it opened: background jobs and subagents
        (with their process groups), language servers, the web client, the stores. A model client
        or store passed in stays open: it is the caller's."""
        if self._runtime is not None:
            runtime, self._runtime, self._session = self._runtime, None, None
            await runtime.aclose(close_model=self._model_client is None, close_store=self._store is None)

    async def __aenter__(self) -> Agent:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


async def _attach(runtime: Runtime, prompt: str, files: Sequence[str]) -> tuple[str, tuple[MediaPart, ...]]:
    if not files:
        return prompt, ()
    ports = runtime.ports
    attached = await attach_files(
        files, workspace=runtime.options.workspace, files=ports.files, images=ports.images
    )
    return attached.text(prompt), attached.media


def _split_tools(tools: Sequence[str | Tool] | None) -> tuple[list[str] | None, tuple[Tool, ...]]:
    """Built-in tool names (None: all of them) and the program's own tools, from ``tools=``."""
    if tools is None:
        return None, ()
    if isinstance(tools, str):
        raise TypeError("tools= takes a list of tool names or tools, not one string")
    names = [item for item in tools if isinstance(item, str)]
    own = tuple(item for item in tools if not isinstance(item, str))
    for item in own:
        if not (hasattr(item, "spec") and hasattr(item, "invoke") and hasattr(item, "name")):
            raise TypeError(f"tools= takes tool names and tools made with @circle.tool, not {item!r}")
    return (names if names or not own else None), own


def _check(approval_mode: str | None, thinking: str | None) -> None:
    """Refuse an unknown approval mode or thinking level at once, in one line."""
    try:
        if approval_mode is not None:
            parse_mode(approval_mode)
        if thinking is not None:
            parse_level(thinking)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _private_data_dir(env: dict[str, str]) -> Path:
    """The data folder, created or tightened to 0700 as every mode does."""
    data = data_dir(env)
    try:
        return private_folder(data)
    except OSError as exc:
        raise ConfigError(f"cannot create the data folder {data}: {exc.strerror}") from None
