"""Print mode and JSON events: one prompt, one turn, the answer or the events on stdout."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from circle.adapters._shared.private_files import private_folder
from circle.adapters._shared.settings_files import (
    data_dir,
    load_credentials,
    load_dotenv_texts,
    load_hooks,
    load_rule_layers,
    load_secrets,
    load_settings_layers,
)
from circle.application.approvals import (
    COMMAND_LINE_HINTS,
    AllowHints,
    ApprovalMode,
    ApprovalPolicy,
    parse_mode,
)
from circle.application.context.system_prompt import PromptOptions
from circle.application.events import AgentEvent, BudgetWarned, RetryScheduled, TurnEnded
from circle.application.ports.approver import Approver
from circle.application.ports.session_store import TrustList
from circle.application.runtime import Runtime, RuntimeOptions
from circle.application.session import AgentSession
from circle.domain.budget import CompactionSettings
from circle.domain.errors import CircleError, ConfigError, UntrustedFolderError
from circle.domain.retry import TimeoutPolicy, retry_line
from circle.domain.secrets import Secrets, dotenv_values, own_keys, scrub_environment
from circle.domain.settings import resolve_endpoint
from circle.domain.thinking import ThinkingLevel, parse_level

from ._options import RunOptions
from ._session_folder import in_sessions_folder
from .container import (
    Config,
    Container,
    build_runtime,
    sandbox_from,
    sandbox_problem,
    trust_list,
    trust_list_at,
)
from .discovery import settle_protocol

if TYPE_CHECKING:
    from .event_codec import EventEncoder

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
DEFAULT_JOB_WAIT_S = 1800.0
T = TypeVar("T")
TrustQuestion = Callable[[Path], Awaitable[bool]]
"""Asks the person whether to trust a folder (line mode); True when they do."""


class JsonLines:
    """Every event as one JSON object on one line of stdout (the JSON codec is imported with the
    first sink, so print mode and the library do not load it)."""

    def __init__(self, out: TextIO) -> None:
        from .event_codec import EventEncoder, dumps

        self.out = out
        self._dumps = dumps
        self.encoder: EventEncoder = EventEncoder()
        """Set to one that knows the session's origin once the session is open."""
        self.closed = False
        """The reader went away (``| head``): the rest of the events are dropped, quietly."""

    def emit(self, event: AgentEvent) -> None:
        if self.closed:
            return
        try:
            for line in self.encoder.lines(event):
                self.out.write(self._dumps(line) + "\n")
            self.out.flush()
        except BrokenPipeError:
            self.closed = True


class Notices:
    """Print mode: the events a person should see besides the answer, one line each on stderr;
    with ``answers_to`` set, each later turn's answer too (the turns job notices start)."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.answers_to: TextIO | None = None

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, TurnEnded) and self.answers_to is not None and event.answer:
            _print_answer(self.answers_to, event.answer)
        elif isinstance(event, BudgetWarned):
            self.err.write(f"circle: warning: {event.message}\n")
            self.err.flush()
        elif isinstance(event, RetryScheduled):
            line = retry_line(event.kind, event.attempt, event.max_attempts, event.delay_ms / 1000)
            self.err.write(f"circle: {line} ({event.error})\n")
            self.err.flush()


async def make_config(
    opts: RunOptions, env: dict[str, str], *, project_trusted: bool = False, probe: bool = True
) -> Config:
    """What ``opts`` and the environment decide over the settings: the person's settings.json and,
    with ``project_trusted``, the project's .circle/settings.json over it key by key (not for what
    only the person sets: :data:`~circle.domain.settings.PERSON_ONLY`). ``probe``: an endpoint
    whose protocol nobody named is probed (False: a model client given in its place).

    Raises:
        ConfigError: with the one line to show.
    """
    data = _private_data_dir(env)
    layers = load_settings_layers(data, opts.workspace, project_trusted=project_trusted)
    settings = layers.settings
    credentials = load_credentials(data)
    endpoint = resolve_endpoint(settings, env, credentials, model_override=opts.model)
    if probe:
        endpoint = await settle_protocol(endpoint, data)
    if not endpoint.model:
        raise ConfigError('no model chosen: pass --model, set CIRCLE_MODEL, or put "model" in settings.json')
    secrets = Secrets(
        load_secrets(data),
        hidden=own_keys(env, credentials, keys=[endpoint.api_key, *_dotenv(opts.workspace)]),
    )
    options = RuntimeOptions(
        workspace=str(opts.workspace),
        model=endpoint.model,
        protocol=endpoint.protocol,
        prompt=PromptOptions(
            replace=opts.system_prompt, append=opts.append_system_prompt, context_files=opts.context_files
        ),
        tools=opts.tools,
        exclude_tools=opts.exclude_tools,
        max_rounds=opts.max_turns,
        thinking=_thinking(opts.thinking or settings.thinking),
        budget_usd=opts.max_budget_usd if opts.max_budget_usd is not None else settings.budget_usd,
        timeouts=TimeoutPolicy.from_env(env),
        env=scrub_environment(env, secrets),
        secrets=secrets,
        home=str(Path.home()),
        sandbox=sandbox_from(opts.sandbox, settings, workspace=opts.workspace, data_dir=data),
        data_dir=str(data),
        compaction=CompactionSettings(
            threshold=settings.compaction.threshold,
            keep=settings.compaction.keep,
            enabled=settings.compaction.enabled,
        ),
    )
    return Config(
        workspace=opts.workspace,
        data_dir=data,
        endpoint=endpoint,
        options=options,
        ephemeral=opts.no_session,
        env=env,
        model_overrides=settings.models,
        net=settings.net,
        approval_mode=_approval_mode(opts, settings.approval_mode),
        notices=layers.ignored,
    )


def _private_data_dir(env: Mapping[str, str]) -> Path:
    """The data folder, created or tightened to 0700 (it holds keys, transcripts and the store)."""
    data = data_dir(env)
    try:
        return private_folder(data)
    except OSError as exc:
        raise ConfigError(f"cannot create the data folder {data}: {exc.strerror}") from None


def _approval_mode(opts: RunOptions, from_settings: str | None) -> ApprovalMode:
    if opts.yolo:
        return "auto"
    try:
        return parse_mode(opts.approval_mode or from_settings or "default")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _thinking(text: str | None) -> ThinkingLevel | None:
    if text is None:
        return None
    try:
        return parse_level(text)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


async def is_trusted(container: Container, folder: Path, *, ask: TrustQuestion | None = None) -> bool:
    """Whether ``folder`` is trusted; when it is not and ``ask`` says yes, it is from now on."""
    return await settle_trust(trust_list(container), folder, ask=ask)


async def settle_trust(trusted: TrustList, folder: Path, *, ask: TrustQuestion | None = None) -> bool:
    """Whether ``folder`` is trusted in ``trusted`` (closed after); when it is not and ``ask`` says
    yes, it is from now on."""
    try:
        if await trusted.is_trusted(str(folder)):
            return True
        if ask is not None and await ask(folder):
            await trusted.trust(str(folder))
            return True
        return False
    finally:
        await trusted.aclose()


async def open_session(runtime: Runtime, opts: RunOptions, *, tail: int | None = None) -> AgentSession:
    """The session ``opts`` name (forked, reopened, the last one, or a new one); a reopened one with
    only its last ``tail`` messages read yet when given (see :meth:`Runtime.open_session`)."""
    session = await _pick_session(runtime, opts, tail=tail)
    if opts.name is not None:
        await session.conversation.set_name(opts.name)
    return session


async def _pick_session(runtime: Runtime, opts: RunOptions, *, tail: int | None) -> AgentSession:
    if opts.fork:
        source, _, at = opts.fork.partition(":")
        return await runtime.fork_session(source, at_checkpoint=at or None, new_session_id=opts.session_id)
    if opts.session:
        session_id, _, at = opts.session.partition(":")
        return await runtime.open_session(session_id, at_checkpoint=at or None, tail=tail)
    if opts.continue_last:
        return await runtime.continue_session(tail=tail)
    return await runtime.new_session(session_id=opts.session_id, title=opts.message[:80] or None)


async def prepare(
    opts: RunOptions,
    err: TextIO,
    container: Container | None = None,
    *,
    ask_trust: TrustQuestion | None = None,
    person: Approver | None = None,
) -> tuple[Runtime, Config]:
    """The configured runtime for ``opts``: trust (refused, or asked with ``ask_trust``; in every
    approval mode, ``--yolo`` too), endpoint and settings (a trusted project's over the person's),
    approval rules (``person`` answers what asks; None: it is not run), and hooks.

    Raises CircleError with the one line to show.
    """
    if container is None:
        env = dict(os.environ)
        opts = in_sessions_folder(opts, env, err)
        trusted = await settle_trust(trust_list_at(_private_data_dir(env)), opts.workspace, ask=ask_trust)
        if trusted:
            container = Container(config=await make_config(opts, env, project_trusted=True))
    else:
        trusted = await is_trusted(container, opts.workspace, ask=ask_trust)
    if not trusted or container is None:
        raise UntrustedFolderError(
            f"{opts.workspace} is not trusted: run `circle trust {opts.workspace}` first"
        )
    config: Config = container.config()
    runtime, _, unapproved = assemble(container, trusted=True, person=person)
    for notice in unapproved:
        err.write(f"circle: {notice}\n")
    return runtime, config


def assemble(
    container: Container, *, trusted: bool, person: Approver | None, hints: AllowHints = COMMAND_LINE_HINTS
) -> tuple[Runtime, ApprovalPolicy, list[str]]:
    """The runtime once the folder's trust is settled: the approval policy (``person`` answers what
    asks; None: it is not run; ``hints`` say in the face's words how to allow what nobody could)
    over the person's rules and a trusted project's, and the hooks.
    Returns the runtime, its policy, and a line for each project hooks file left unapproved and
    each project setting left out.

    Raises ConfigError when commands cannot be sandboxed as configured.
    """
    config: Config = container.config()
    if (problem := sandbox_problem(config)) is not None:
        raise ConfigError(problem)
    layers = load_rule_layers(config.data_dir, config.workspace, project_trusted=trusted)
    policy = ApprovalPolicy(config.approval_mode, layers, person=person, hints=hints)
    container.approver.override(policy)
    config.options.hooks = load_hooks(config.data_dir, config.workspace, project_trusted=trusted)
    unapproved = [
        f"{path} is new or changed and was not run; review it, then `circle trust` approves it"
        for path in config.options.hooks.unapproved
    ] + list(config.notices)
    return build_runtime(container), policy, unapproved


def job_wait_s(env: Mapping[str, str]) -> float:
    """``CIRCLE_JOB_WAIT``: how long to wait for the model's background jobs before leaving."""
    text = env.get("CIRCLE_JOB_WAIT", "").strip()
    if not text:
        return DEFAULT_JOB_WAIT_S
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"CIRCLE_JOB_WAIT must be a number of seconds, not {text!r}") from None
    if value < 0 or value != value:
        raise ConfigError(f"CIRCLE_JOB_WAIT must be zero or more seconds, not {text!r}")
    return value


async def run_headless(
    opts: RunOptions, *, out: TextIO, err: TextIO, container: Container | None = None
) -> int:
    """Run one prompt in print or JSON mode and return the exit code.

    Background jobs the model started are waited for afterwards (up to ``CIRCLE_JOB_WAIT`` seconds
    and ten turns for their notices), each of those turns' answers printed as it ends.
    """
    json_mode = opts.mode == "json"
    sink = JsonLines(out) if json_mode else None
    try:
        wait_s = job_wait_s(os.environ)
        runtime, _ = await prepare(opts, err, container)
    except CircleError as exc:
        return report(exc, err, sink)
    notices = Notices(err)
    runtime.events.subscribe(sink if sink is not None else notices)
    try:
        session = await open_session(runtime, opts)
        if sink is not None:
            from .event_codec import EventEncoder, session_origin

            sink.encoder = EventEncoder(session_origin(runtime, lambda: session))
        expanded = await _custom_command(runtime, opts.message, err)
        prompt = session.prompt(
            expanded or opts.message,
            media=opts.media,
            attached=opts.attached,
            typed=opts.message if expanded else None,
        )
        result = await _run_interruptible(session, prompt)
        if not json_mode and result.error is None and (result.answer or not result.aborted):
            _print_answer(out, result.answer)  # stopped mid-answer: the text it had sent, as stored
            notices.answers_to = out
        if not result.aborted and session.jobs is not None and session.jobs.running:
            await _run_interruptible(session, session.wait_for_jobs(wait_s))
            if session.hold_job_turns:  # ctrl+c while waiting
                result = replace(result, aborted=True)
        session.hold_job_turns = True  # leaving: a job ending now gets no turn
        if opts.export is not None:
            from ._transfer import export_file

            branch = session.conversation.branch
            await export_file(runtime.ports.store, session.session_id, opts.export, branch=branch)
    except CircleError as exc:
        await _leave(runtime, err)
        return report(exc, err, sink)
    await _leave(runtime, err)
    if result.aborted:
        err.write("circle: interrupted\n")
        return EXIT_INTERRUPTED
    if result.error is not None:  # the JSON stream has its ``error`` event besides
        err.write(f"circle: {result.error.message}\n")
        return EXIT_FAILED
    if result.incomplete:
        err.write("circle: the answer is incomplete (it stopped before a proper finish)\n")
    return EXIT_OK


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""What stops a running Circle as ctrl+c does: its turn and commands end and are recorded."""


async def _custom_command(runtime: Runtime, message: str, err: TextIO) -> str | None:
    """``/name arguments`` of a custom command, filled (None for another message); the folder is
    trusted, as print mode runs in no other."""
    from circle.application.context.commands import expand_message

    expanded, problems = await expand_message(
        runtime.ports.files, message, workspace=runtime.options.workspace, home=runtime.options.home
    )
    for problem in problems:
        err.write(f"circle: warning: the command file {problem}; the message is sent as typed\n")
    return expanded


def _print_answer(out: TextIO, answer: str) -> None:
    out.write(answer + ("" if answer.endswith("\n") else "\n"))
    out.flush()


async def _leave(runtime: Runtime, err: TextIO) -> None:
    """Stop the background jobs with their process groups (one prompt waits for none), say so, close."""
    if stopped := await runtime.stop_jobs():
        err.write(f"circle: stopped {stopped} background job{'' if stopped == 1 else 's'}\n")
        err.flush()
    await runtime.aclose()


async def _run_interruptible(session: AgentSession, work: Awaitable[T]) -> T:
    """Await ``work`` with ctrl+c, SIGTERM and SIGHUP (a closed terminal, a dropped connection)
    stopping the session's running turn (and holding the turns of job notices: nothing more runs)."""
    loop = asyncio.get_running_loop()

    def interrupt() -> None:
        session.hold_job_turns = True
        session.cancel()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, interrupt)
    try:
        return await work
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)


def report(exc: CircleError, err: TextIO, sink: JsonLines | None) -> int:
    err.write(f"circle: {exc.message}\n")
    if sink is not None:
        from .event_codec import dumps

        sink.out.write(dumps({"type": "error", "code": exc.code, "message": exc.message}) + "\n")
        sink.out.flush()
    return EXIT_FAILED


def _dotenv(workspace: Path | str) -> list[str]:
    """The values of the workspace's dotenv files, hidden from the model in every output."""
    return [value for text in load_dotenv_texts(Path(workspace)) for value in dotenv_values(text)]


__all__ = ["RunOptions", "run_headless"]
