"""The tool contract: a frozen pydantic ``Args`` model, a name, ``run(args, ctx)`` and an approval class.

Bad arguments and failures become a :class:`ToolError` whose message reaches the model.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from circle.application.approvals import PlanMode
from circle.application.credential_files import CredentialFiles
from circle.application.jobs import JobManager
from circle.application.ports.approver import ApprovalDecision, ApprovalKind, ApprovalRequest, Approver
from circle.application.ports.asker import Asker
from circle.application.ports.file_system import FileInfo, FileSystem
from circle.application.ports.image_codec import ImageCodec
from circle.application.ports.language_servers import LanguageServers
from circle.application.ports.native_search import NativeSearch
from circle.application.ports.process_runner import ProcessRunner
from circle.application.ports.text_search import TextSearch
from circle.application.ports.web import WebClient
from circle.application.prompts import load_prompt
from circle.application.turn_journal import TurnJournal
from circle.domain.credentials import command_words, credential_words, is_credential_path
from circle.domain.display import escape_for_display
from circle.domain.errors import ApprovalDeniedError, ToolError
from circle.domain.messages import DocumentPart, ImagePart, Usage
from circle.domain.model import ToolSpec
from circle.domain.secrets import Secrets
from circle.domain.transcript import project_folder
from circle.domain.workspace import (
    always_ask_place,
    data_path,
    is_inside,
    join_in_workspace,
    relative_display,
)

from ._schema import wire_schema
from .protected_places import PlacesCache


class ToolArgs(BaseModel):
    """Base of every tool's arguments: frozen, unknown names refused. Each one's validator is built
    at its first use (its first call, or its schema when the specs are not kept), not as its module
    loads: the tools the runtime imports as it starts (plan, task, compaction) are seldom called."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


@dataclass(frozen=True, slots=True)
class ToolOutput:
    text: str
    is_error: bool = False
    attachments: tuple[ImagePart | DocumentPart, ...] = ()
    usage: Usage | None = None
    """Tokens spent producing this output (a subagent's answers); None: none."""
    diff: str | None = None
    """The unified diff a file change made, kept with the result for display (see
    :attr:`circle.domain.messages.ToolResultPart.diff`)."""
    shown: str | None = None
    """What a person reads in place of ``text`` (see :attr:`circle.domain.messages.ToolResultPart.shown`)."""


PathUse = Literal["read", "write"]


class SubagentRunner(Protocol):
    """Runs a subagent for ``task`` (see :class:`circle.application.subagents.Subagents`)."""

    async def run_task(
        self, *, description: str, prompt: str, subagent_type: str, ctx: ToolContext
    ) -> ToolOutput: ...

    async def start_task(
        self, *, description: str, prompt: str, subagent_type: str, ctx: ToolContext
    ) -> ToolOutput:
        """Start the subagent as a background job of ``ctx.jobs``; say which, at once."""
        ...


CREDENTIAL_REFUSAL = "is a credential file: Circle does not read or change credential files"
MAX_COMMAND_WORDS_RESOLVED = 200


class ArgumentsChanged(Exception):
    """The approver allowed the call with other arguments (or a PreToolUse hook changed its
    input): the tool stops before it changes anything, and the loop runs the call again with
    ``arguments`` (see :mod:`..call_runs`). ``approved``: the approver wrote them."""

    def __init__(
        self, arguments: Mapping[str, object], *, by: str = "the approver", approved: bool = True
    ) -> None:
        super().__init__(f"{by} changed the call's arguments")
        self.arguments = arguments
        self.by = by
        self.approved = approved


def raise_if_changed(decision: ApprovalDecision, current: Mapping[str, JsonValue]) -> None:
    """Raise :class:`ArgumentsChanged` when ``decision`` allows with arguments other than ``current``."""
    if decision.allowed and decision.arguments is not None and dict(decision.arguments) != dict(current):
        raise ArgumentsChanged(decision.arguments)


@dataclass
class ToolContext:
    """What a running tool may touch: the workspace through the ports, and the approver.

    ``env`` is the whole environment for commands (secrets already stripped by the entrypoint);
    empty means the process's own. ``secrets`` turns values back into ``%NAME%`` in what is shown.
    """

    workspace: str
    files: FileSystem
    search: TextSearch
    processes: ProcessRunner
    approver: Approver
    env: dict[str, str] = field(default_factory=dict)
    images: ImageCodec | None = None
    secrets: Secrets = field(default_factory=Secrets)
    home: str = "~"
    hook_allowed: bool = False
    call_arguments: Mapping[str, JsonValue] = field(default_factory=dict)
    """The running call's arguments as the model gave them, for its approval request."""
    journal: TurnJournal | None = None
    data_dir: str | None = None
    """Circle's data folder: /conversation_history/, /large_tool_results/, /background_jobs/ and
    /session_plans/ resolve there (read only)."""
    """Where the file tools and ``execute`` record what they change (for a rewind); None: nowhere."""
    jobs: JobManager | None = None
    """The session's background jobs (``execute`` with ``background``); None: not available."""
    web: WebClient | None = None
    """What webfetch and websearch read the web through; None: they say the session has no web access."""
    native_search: NativeSearch | None = None
    """The model endpoint's own web search, which websearch tries first; None: DuckDuckGo only."""
    asker: Asker | None = None
    """Who answers the question tool and plan_exit; None where nobody can (print, JSON, RPC)."""
    plan_mode: PlanMode = field(default_factory=PlanMode)
    """The session's plan mode, shared with its approver's :class:`PlanModeGate`."""
    plan_file: str | None = None
    """Where plan_exit writes the plan (``<data folder>/session_plans/<id>.md``); None: not saved."""
    subagents: SubagentRunner | None = None
    """What ``task`` starts subagents with; None: subagents are not available (or this is one)."""
    lsp: LanguageServers | None = None
    """What the lsp tool asks; None: it says the session has no language servers."""
    places_cache: PlacesCache = field(default_factory=dict, repr=False)
    progress: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    """Told the running call's output so far (all of it) as it grows, e.g. a command's printed
    lines; None: nobody follows it. The agent loop sets it for each call."""
    """The always-ask places' contents as ``execute`` last read them (see
    :mod:`circle.application.tools.protected_places`), shared by the session's calls."""
    _credentials: CredentialFiles | None = field(default=None, init=False, repr=False, compare=False)

    def for_call(
        self,
        *,
        call_arguments: Mapping[str, JsonValue] | None = None,
        progress: Callable[[str], None] | None = None,
        hook_allowed: bool | None = None,
        approver: Approver | None = None,
    ) -> ToolContext:
        """This context for one call: a shallow copy (as ``dataclasses.replace`` makes, its credential
        files made afresh) with the given fields changed; None leaves one as it is. Made without
        ``__init__``: a tool round makes two or three."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._credentials = None
        if call_arguments is not None:
            copy.call_arguments = call_arguments
        if progress is not None:
            copy.progress = progress
        if hook_allowed is not None:
            copy.hook_allowed = hook_allowed
        if approver is not None:
            copy.approver = approver
        return copy

    async def approve_write(self, tool: str, resolved: str, summary: str) -> None:
        """Ask before a file change: rules see the workspace-relative path; protected places always ask."""
        inside = is_inside(self.workspace, resolved)
        subject = self.show(resolved) if inside else resolved
        place = self.always_ask_place(resolved)
        await self.approve(
            tool,
            "edit",
            summary,
            subject=subject,
            outside_workspace=not inside,
            always_ask=bool(place),
            ask_reason=f"it changes {place}, which always asks" if place else "",
        )

    def always_ask_place(self, resolved: str) -> str:
        """The always-ask place ``resolved`` lies in (:func:`~circle.domain.workspace.always_ask_place`)."""
        home = None if self.home in ("", "~") else self.home
        return always_ask_place(resolved, workspace=self.workspace, data_dir=self.data_dir, home=home)

    async def resolve(self, path: str, *, use: PathUse = "read") -> str:
        """The real path of ``path`` (relative to the workspace), symlinks followed before any decision.

        Refused: a credential file (as written or resolved), and a read outside the workspace. A write
        outside it is let through here: the tool asks for it (see :meth:`where`). A path in Circle's
        data folder (``/conversation_history/...``) is given as it lies there, not resolved.
        """
        if (virtual := self._data_path(path, use=use)) is not None:
            return virtual
        resolved, _ = await self._judged(path, use=use)
        return resolved

    async def resolve_file(self, path: str, *, use: PathUse = "read") -> tuple[str, FileInfo | None]:
        """The real path of ``path``, refused as :meth:`resolve` refuses, and the ``stat`` it was
        judged by (None: nothing is there), for the caller to read or change the file by
        (``expect``): the file judged is the file used.

        The path is resolved once. A path changed after that (a symlink swapped in, another file put
        there) is refused when it is used: the file tools read and write with
        ``follow_symlinks=False``, and a read checks the file is still the one this ``stat`` saw.
        """
        if (virtual := self._data_path(path, use=use)) is not None:
            resolved = await self.files.resolve(virtual)
            return resolved, await self._stat_unless_credential(path, resolved, resolved)
        return await self._judged(path, use=use)

    def _data_path(self, path: str, *, use: PathUse) -> str | None:
        """Where ``path`` lies in Circle's data folder, when it is one of its virtual paths (read only)."""
        if not path or "\x00" in path:
            raise ToolError("a path is required" if not path else "the path contains a NUL byte")
        if self.data_dir and (virtual := data_path(path, data_dir=self.data_dir, project=self.project)):
            if use != "read":
                raise ToolError(f"{path} is in Circle's data folder, which tools only read")
            return virtual
        return None

    async def _judged(self, path: str, *, use: PathUse) -> tuple[str, FileInfo | None]:
        """``path``'s real path and its ``stat``, once each, judged by both (see :meth:`resolve`)."""
        written = join_in_workspace(self.workspace, path)
        resolved = await self.files.resolve(written)
        info = await self._stat_unless_credential(path, written, resolved)
        if use == "read" and not is_inside(self.workspace, resolved):
            raise ToolError(f"{path} is outside the workspace ({self.workspace})")
        return resolved, info

    async def _stat_unless_credential(self, path: str, written: str, resolved: str) -> FileInfo | None:
        """The ``stat`` of ``resolved``, the real path of ``written``; a :class:`ToolError` when it is a
        credential file, as :meth:`is_credential` judges: by either name first (a refusal needs no
        ``stat``, which could fail), then by inode."""
        if is_credential_path(written) or is_credential_path(resolved):
            raise ToolError(f"{path} {CREDENTIAL_REFUSAL}")
        info = await self.files.stat(resolved)
        if info is not None and await self._credential_files().is_linked_credential(info):
            raise ToolError(f"{path} {CREDENTIAL_REFUSAL}")
        return info

    def _credential_files(self) -> CredentialFiles:
        if self._credentials is None:
            home = self.home if self.home.startswith("/") else None
            self._credentials = CredentialFiles(
                self.files, workspace=self.workspace, home=home, data_dir=self.data_dir
            )
        return self._credentials

    async def is_credential(self, path: str, *, info: FileInfo | None = None) -> bool:
        """Whether ``path`` (relative to the workspace) is a credential file, by what it is.

        Judged as written, with symlinks resolved (``/proc`` and ``/dev`` paths included), and by inode:
        a file with other hard links is one when it is the same file as a known credential file.
        ``info``: the ``stat`` the caller holds the file to, so the file judged is the file used.
        """
        written = join_in_workspace(self.workspace, path)
        return await self._credential_files().is_credential(written, info=info)

    def command_env(self, extra: Mapping[str, str]) -> dict[str, str]:
        """The environment commands run with (``env``, or the process's own where it is empty),
        with ``extra`` over it."""
        return {**(self.env or os.environ), **extra}

    async def is_known_credential(self, info: FileInfo) -> bool:
        """Whether a file met in a scan (stat'ed through symlinks) is a known credential file by
        inode, or a second name of one: for checking many files without a look-up each."""
        credentials = self._credential_files()
        return await credentials.is_known(info) or await credentials.is_linked_credential(info)

    @property
    def project(self) -> str:
        return project_folder(self.workspace)

    def show(self, resolved: str) -> str:
        if self.data_dir and is_inside(self.data_dir, resolved) and not is_inside(self.workspace, resolved):
            return resolved
        return relative_display(self.workspace, resolved)

    def where(self, resolved: str) -> str:
        """The path for an approval summary, saying so when it is outside the workspace."""
        if is_inside(self.workspace, resolved):
            return self.show(resolved)
        return f"{resolved} (outside the workspace)"

    async def check_command(self, command: str, *, words: Sequence[Sequence[str]] | None = None) -> None:
        """Refuse a command whose words name a credential file: as written, through a symlink, or
        as a second name (a hard link) of one (:meth:`is_credential`).

        ``words`` are the parsed simple commands (from the classifier); without them the command is
        split like a shell line. At most :data:`MAX_COMMAND_WORDS_RESOLVED` words are looked up.
        """
        parsed = command_words(command) if words is None else words
        words_flat = [word for simple in parsed for word in simple]
        if named := credential_words(words_flat):
            raise ToolError(f"the command names {named[0]}, which {CREDENTIAL_REFUSAL}")
        paths = [
            w for w in words_flat if not w.startswith(("-", "~", "$")) and "=" not in w and w.strip("/.")
        ]
        for word in paths[:MAX_COMMAND_WORDS_RESOLVED]:
            if "\x00" not in word and await self._names_credential(word):
                raise ToolError(f"the command names {word}, which {CREDENTIAL_REFUSAL}")

    async def _names_credential(self, word: str) -> bool:
        """Whether a command's word is a credential file; a word the file system cannot look up
        (too long a name, a folder it may not enter) names no file the command could read."""
        try:
            return await self.is_credential(word)
        except OSError:
            return is_credential_path(join_in_workspace(self.workspace, word))

    async def approve(
        self,
        tool: str,
        kind: ApprovalKind,
        summary: str,
        *,
        subject: str = "",
        subjects: Sequence[str] = (),
        outside_workspace: bool = False,
        always_ask: bool = False,
        ask_reason: str = "",
        safe: bool = False,
        resolved: Sequence[str] = (),
    ) -> None:
        """Ask before a change; raise :class:`ApprovalDeniedError` when refused, and
        :class:`ArgumentsChanged` when allowed with other arguments.

        ``subjects``: every path of a change to several files (each judged by the rules). The
        summary and subjects are shown with saved secrets written ``%NAME%``. ``resolved``: a
        command's parts with their paths resolved, which deny and ask rules match too.
        """
        decision = await self.approver.decide(
            ApprovalRequest(
                tool_name=tool,
                kind=kind,
                summary=escape_for_display(self.secrets.mask(summary)),
                workspace=self.workspace,
                subject=self.secrets.mask(subject),
                subjects=tuple(self.secrets.mask(each) for each in subjects),
                outside_workspace=outside_workspace,
                always_ask=always_ask,
                ask_reason=ask_reason,
                safe=safe,
                resolved=tuple(self.secrets.mask(each) for each in resolved),
                hook_allowed=self.hook_allowed,
                arguments=self.call_arguments,
            )
        )
        if not decision.allowed:
            reason = f": {decision.reason}" if decision.reason else ""
            raise ApprovalDeniedError(f"{tool} was not approved{reason}", shown=decision.shown or None)
        raise_if_changed(decision, self.call_arguments)


class Tool(Protocol):
    """What the agent loop needs from a tool."""

    @property
    def name(self) -> str: ...

    def spec(self) -> ToolSpec: ...

    async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput: ...


A = TypeVar("A", bound=ToolArgs)


def describe_validation(name: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return f"invalid arguments for {name}: " + "; ".join(problems)


@dataclass(frozen=True)
class BuiltinTool(Generic[A]):
    """A built-in tool; its description is ``prompts/tools/<name>.md``."""

    name: str
    args: type[A]
    run: Callable[[A, ToolContext], Awaitable[ToolOutput]]
    known: ToolSpec | None = field(default=None, compare=False)
    """The spec kept from an earlier run (see :meth:`with_spec`); None: made on each call."""

    def with_spec(self, spec: ToolSpec) -> BuiltinTool[A]:
        """This tool with ``spec`` given by :meth:`spec` (one a spec cache kept for it)."""
        return replace(self, known=spec)

    def spec(self) -> ToolSpec:
        if self.known is not None:
            return self.known
        schema = wire_schema(self.args.model_json_schema())
        return ToolSpec(name=self.name, description=load_prompt(f"tools/{self.name}.md"), parameters=schema)

    async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput:
        try:
            args = self.args.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(describe_validation(self.name, exc)) from None
        return await self.run(args, ctx)


__all__ = [
    "CREDENTIAL_REFUSAL",
    "ArgumentsChanged",
    "BuiltinTool",
    "PathUse",
    "SubagentRunner",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolOutput",
    "describe_validation",
    "raise_if_changed",
]
