"""Line mode: prompts read one a line from standard input, each answer printed when its turn ends.

``circle --line``, or ``circle`` with prompts piped on stdin. The same lines answer the setup
questions (base URL, key, model) when no endpoint is set up, and the trust question when the folder
is not trusted yet; the folder is then remembered as trusted. At a terminal, calls that ask are
put to the person line by line (y: once, a: for this session, n: no); from a pipe they are decided
as in print mode (not run; the model is told why). ``/quit`` or the end of the input ends the
session; the model's background jobs are then waited for as in print mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from circle.adapters._shared.settings_files import data_dir
from circle.application.attachments import Attached, mentioned
from circle.application.events import AgentEvent, ToolExecutionStarted
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.runtime import Runtime
from circle.domain.display import command_lines, more_lines, one_line
from circle.domain.errors import CircleError

from ._exit_guard import leave_within
from ._setup import needs_setup, probe, save_endpoint
from ._stdin import StdinLines
from .headless import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Notices,
    RunOptions,
    job_wait_s,
    open_session,
    prepare,
)

QUIT = frozenset({"/quit", "/exit"})


class LineReader:
    """Reads standard input a line at a time without blocking the event loop."""

    def __init__(self, stdin: TextIO, err: TextIO, *, interactive: bool) -> None:
        self.stdin = stdin
        self.err = err
        self.interactive = interactive
        self.lines = StdinLines(getattr(stdin, "buffer", None))
        self._started = False

    async def ask(self, question: str, *, secret: bool = False) -> str | None:
        """The next line; the question is shown first at a terminal; None once the input closed.

        With ``secret`` the terminal does not echo what is typed (an API key), as getpass does.
        """
        if not self._started:
            self.lines.start()
            self._started = True
        quiet = secret and self.interactive
        with _no_echo(self.stdin) if quiet else contextlib.nullcontext():
            if self.interactive and not self.lines.closed:
                self.err.write(question)
                self.err.flush()
            line = await self.lines.next()
        if quiet:
            self.err.write("\n")  # the Enter was not echoed either
            self.err.flush()
        return line

    def close(self) -> None:
        """Stop waiting for input: the line being read, if any, comes back as None."""
        self.lines.close()


@contextlib.contextmanager
def _no_echo(stream: TextIO) -> Iterator[None]:
    """The terminal on ``stream`` without echo while inside (lines still end at Enter); nothing
    changes where it is not a terminal."""
    try:
        import termios

        fd = stream.fileno()
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


class LineApprover:
    """Puts a call that asks to the person at the terminal: y once, a for this session, n no."""

    def __init__(self, reader: LineReader, err: TextIO) -> None:
        self.reader = reader
        self.err = err

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.err.write(asked_text(request))
        while True:
            answer = await self.reader.ask("allow? [y]es once, [a]lways this session, [n]o: ")
            if answer is None:
                return ApprovalDecision(allowed=False, reason="the person's input closed before an answer")
            choice = answer.strip().lower()
            if choice in ("y", "yes"):
                return ApprovalDecision(allowed=True)
            if choice in ("a", "always"):
                return ApprovalDecision(allowed=True, remember=True)
            if choice in ("n", "no", ""):
                return ApprovalDecision(allowed=False, reason="the person said no")
            self.err.write("circle: answer y, a or n\n")


def asked_text(request: ApprovalRequest) -> str:
    """What is put to the person: the whole command (or summary), escaped, blank runs folded;
    then, for one of several lines, its first line again, last, beside the question."""
    lines = command_lines(request.summary)
    shown = "".join(f"  {line.text}\n" for line in lines)
    said = f"\ncircle: {one_line(request.tool_name)} wants to run:\n{shown}"
    if request.ask_reason and not request.by_mode:  # the person chose the mode; say only the rest
        said += f"circle: it asks because {one_line(request.ask_reason)}\n"
    if more := more_lines(request.summary):
        first = next((line.text for line in lines if not line.blank_lines), "")
        said += f"circle: its first line: {first}  {more}, all shown above\n"
    return said


class ToolLines:
    """At a terminal: one line on stderr for each tool call, so the person sees what runs."""

    def __init__(self, err: TextIO) -> None:
        self.err = err

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionStarted):
            args = " ".join(f"{k}={v}" for k, v in event.args.items() if isinstance(v, str | int))
            shown = one_line(args, 120, count_lines=True)
            self.err.write(f"  · {event.tool_name} {shown}\n")
            self.err.flush()


async def run_line(opts: RunOptions, *, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    """Run line mode until the input closes or ``/quit``; the exit code."""
    interactive = stdin.isatty()
    reader = LineReader(stdin, err, interactive=interactive)
    env = dict(os.environ)
    try:
        wait_s = job_wait_s(env)
        if needs_setup(data_dir(env), opts.workspace, env, model=opts.model) and not await _set_up(
            reader, err, env, opts
        ):
            return EXIT_FAILED

        async def ask_trust(folder: Path) -> bool:
            err.write(
                f"circle: {folder} is not trusted yet. Circle reads, changes and runs commands in the "
                "folder you trust.\n"
            )
            answer = await reader.ask("trust it? [y/N]: ")
            return answer is not None and answer.strip().lower() in ("y", "yes")

        person = LineApprover(reader, err) if interactive else None
        runtime, _ = await prepare(opts, err, ask_trust=ask_trust, person=person)
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        return EXIT_FAILED
    notices = Notices(err)
    runtime.events.subscribe(notices)
    if interactive:
        runtime.events.subscribe(ToolLines(err))
    interrupted = False
    try:
        session = await open_session(runtime, opts)
        loop = asyncio.get_running_loop()

        def interrupt() -> None:
            nonlocal interrupted
            if not session.cancel():  # nothing ran: ctrl+c at the prompt leaves
                interrupted = True
                reader.close()

        def hang_up() -> None:  # SIGTERM, or SIGHUP: the terminal is gone; stop the turn and leave
            nonlocal interrupted
            leave_within()  # should leaving not finish, the process ends anyway (_exit_guard.py)
            interrupted = True
            session.cancel()
            reader.close()

        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, interrupt)
            loop.add_signal_handler(signal.SIGTERM, hang_up)
            loop.add_signal_handler(signal.SIGHUP, hang_up)
        pending = opts.message.strip()  # its @files were attached on the command line
        failed = False
        while not interrupted:
            typed = not pending
            text = pending or await reader.ask("> ")
            pending = ""
            if text is None or text.strip() in QUIT:
                break
            if not text.strip():
                continue
            try:
                attached = await _attach_typed(runtime, text) if typed else None
            except CircleError as exc:  # a mentioned file that cannot go: say so, and ask again
                err.write(f"circle: {exc.message}\n")
                continue
            if not typed:
                attached = opts.attached
            result = await session.prompt(text, media=() if typed else opts.media, attached=attached)
            if result.aborted:
                if result.answer:  # stopped mid-answer: the text it had sent, as stored
                    out.write(result.answer + ("" if result.answer.endswith("\n") else "\n"))
                    out.flush()
                err.write("circle: interrupted\n")
            elif result.error is not None:
                err.write(f"circle: {result.error.message}\n")
                failed = True
            else:
                out.write(result.answer + ("" if result.answer.endswith("\n") else "\n"))
                out.flush()
                if result.incomplete:
                    err.write("circle: the answer is incomplete (it stopped before a proper finish)\n")
        if not interrupted and session.jobs is not None and session.jobs.running:
            notices.answers_to = out
            await session.wait_for_jobs(wait_s)
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        failed = True
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                asyncio.get_running_loop().remove_signal_handler(sig)
        if stopped := await runtime.stop_jobs():
            err.write(f"circle: stopped {stopped} background job{'' if stopped == 1 else 's'}\n")
        await runtime.aclose()
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if failed else EXIT_OK


async def _attach_typed(runtime: Runtime, text: str) -> Attached:
    """The files a typed line's @mentions name, as the interface attaches them."""
    ports = runtime.ports
    return await mentioned(text, workspace=runtime.options.workspace, files=ports.files, images=ports.images)


async def _set_up(reader: LineReader, err: TextIO, env: dict[str, str], opts: RunOptions) -> bool:
    """Ask for the endpoint line by line, probe it, save it; False when the person gave up."""
    err.write("circle: no model endpoint is set up yet.\n")
    base_url = await reader.ask("base URL (e.g. https://api.openai.com/v1): ")
    if base_url is None or not base_url.strip():
        err.write("circle: no base URL given: set CIRCLE_BASE_URL, or answer the setup questions\n")
        return False
    key = await reader.ask("API key (empty for none, not shown as typed): ", secret=True)
    if key is None:
        err.write("circle: the input closed during setup\n")
        return False
    try:
        found = await probe(base_url.strip(), key.strip())
    except CircleError as exc:
        err.write(f"circle: {exc.message}\n")
        return False
    model = opts.model
    if not model:
        listed = ", ".join(found.models[:10]) + (" …" if len(found.models) > 10 else "")
        default = found.models[0] if found.models else ""
        answer = await reader.ask(f"model ({listed or 'the endpoint listed none'}) [{default}]: ")
        model = (answer or "").strip() or default
    if not model:
        err.write("circle: no model chosen: pass --model, or set CIRCLE_MODEL\n")
        return False
    save_endpoint(
        data_dir(env),
        base_url.strip(),
        key.strip(),
        model=model,
        protocol=found.protocol,
        probed_base_url=found.base_url,
    )
    err.write(f"circle: saved: {found.base_url} ({found.protocol}), model {model}\n")
    return True


__all__ = ["run_line"]
