"""What the root command does with its choices, without Typer: checks them, reads the message, the
@files and piped input, and runs the mode (the interface, print, JSON, line or RPC).

Both ways in share it: the Typer command (:mod:`._root`) for every command line, and the quick
reading of the common ones (:mod:`._argv`), which skips Typer's import and its per-option
conversions, so that the interface paints sooner. A refusal is a :class:`BadUsage`, which each says
as Typer says a bad parameter.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from circle.domain.sandbox import SANDBOX_MODES

from ._crash import guard
from ._options import RunOptions, read_stdin_message

if TYPE_CHECKING:
    from circle.application.attachments import Attached


class BadUsage(Exception):
    """A command line that cannot run: exit code 2, said as ``Invalid value for HINT: MESSAGE``."""

    def __init__(self, message: str, *, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param_hint = param_hint

    def said(self) -> str:
        """The line after ``circle:``, as Typer formats a bad parameter (less its "Invalid value: ")."""
        return f"Invalid value for {self.param_hint}: {self.message}" if self.param_hint else self.message


@dataclass
class Choices:
    """The root command's parameters, as given (see :func:`circle.entrypoints._root.run`)."""

    args: list[str] | None = None
    print_mode: bool = False
    mode: str | None = None
    line: bool = False
    resume: bool = False
    model: str | None = None
    provider: str | None = None
    thinking: str | None = None
    no_session: bool = False
    continue_last: bool = False
    session: str | None = None
    session_id: str | None = None
    fork: str | None = None
    name: str | None = None
    yolo: bool = False
    approval_mode: str | None = None
    sandbox: str | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    no_context_files: bool = False
    max_turns: int | None = None
    max_budget_usd: float | None = None
    tools: str | None = None
    exclude_tools: str | None = None
    no_tools: bool = False
    export: Path | None = None
    rpc_approvals: bool = False


def run_choices(choices: Choices) -> int:
    """Check the choices, then run the mode; its exit code.

    Raises:
        BadUsage: A value or a combination the command cannot run.
    """
    opts = _options(choices)
    if opts.mode == "rpc":
        from .rpc import run_rpc

        return guard(lambda: asyncio.run(run_rpc(opts, out=sys.stdout, err=sys.stderr)))
    if opts.mode == "line":
        from .line import run_line

        return guard(lambda: asyncio.run(run_line(opts, stdin=sys.stdin, out=sys.stdout, err=sys.stderr)))
    if opts.mode == "tui":
        from .tui import run_tui

        return guard(lambda: run_tui(opts))
    from .headless import run_headless

    return guard(lambda: asyncio.run(run_headless(opts, out=sys.stdout, err=sys.stderr)))


def _options(c: Choices) -> RunOptions:
    _check_alone(c)
    folder, files, message = _split(c.args or [])
    if c.mode == "rpc" and (files or message.strip() or c.resume or c.line or c.print_mode):
        raise BadUsage(
            "RPC mode takes no message, @file, -p, -r or --line: send prompts as commands on stdin",
            param_hint="--mode rpc",
        )
    if c.rpc_approvals and c.mode != "rpc":
        raise BadUsage("--rpc-approvals goes with --mode rpc", param_hint="--rpc-approvals")
    if c.resume and (c.print_mode or c.mode is not None or c.line):
        raise BadUsage("-r picks a session in the full-screen interface: use --session ID here")
    headless = c.print_mode or c.mode == "json"
    line = c.line or (not headless and c.mode is None and not sys.stdin.isatty())
    if line and (c.print_mode or c.mode is not None):
        raise BadUsage("--line goes without -p and --mode")
    named_tools = [*(_csv(c.tools) or []), *(_csv(c.exclude_tools) or [])]
    check_values(thinking=c.thinking, approval_mode=c.approval_mode, tools=named_tools)
    if headless:
        message, attached = _with_stdin(message), _attach(folder, files)
        if not message.strip():
            raise BadUsage("no message: give one after the options, or pipe it on stdin")
    else:
        attached = _attach(folder, files)
    mode = c.mode or ("line" if line else "print" if c.print_mode else "tui")
    return _run_options(c, folder=folder, message=message, attached=attached, mode=mode)


def _run_options(
    c: Choices, *, folder: Path, message: str, attached: Attached | None, mode: str
) -> RunOptions:
    return RunOptions(
        workspace=folder,
        message=message,
        attached=attached,
        mode=mode,
        model=c.model,
        no_session=c.no_session,
        continue_last=c.continue_last,
        session=c.session,
        session_id=c.session_id,
        yolo=c.yolo,
        approval_mode=c.approval_mode,
        sandbox=c.sandbox,
        system_prompt=c.system_prompt,
        append_system_prompt=c.append_system_prompt,
        context_files=not c.no_context_files,
        max_turns=c.max_turns,
        max_budget_usd=c.max_budget_usd,
        tools=[] if c.no_tools else _csv(c.tools),
        exclude_tools=_csv(c.exclude_tools) or [],
        thinking=c.thinking,
        export=c.export,
        fork=c.fork,
        name=c.name,
        resume=c.resume,
        rpc_approvals=c.rpc_approvals,
    )


def _check_alone(c: Choices) -> None:
    """The checks that need no message: the mode, the session options, the sandbox, the export."""
    if c.mode not in (None, "json", "rpc"):
        raise BadUsage(f"unknown mode {c.mode!r}: use json or rpc", param_hint="--mode")
    if c.provider is not None:
        _use_provider(c.provider)
    if c.session and (c.continue_last or c.session_id):
        raise BadUsage("--session goes alone: not with --continue or --session-id")
    if c.fork is not None and (c.session or c.continue_last or not c.fork.partition(":")[0]):
        raise BadUsage("--fork takes ID[:MSG], and not with --session or --continue")
    if c.sandbox is not None and c.sandbox not in SANDBOX_MODES:
        raise BadUsage(
            f"unknown sandbox mode {c.sandbox!r}: use {', '.join(SANDBOX_MODES)}", param_hint="--sandbox"
        )
    if c.export is not None:
        from circle.domain.errors import ConfigError
        from circle.domain.export import format_from_name

        try:
            format_from_name(c.export.name)
        except ConfigError as exc:
            raise BadUsage(exc.message, param_hint="--export") from None


def _split(args: list[str]) -> tuple[Path, list[str], str]:
    """FOLDER (when the first word is an existing folder), @files, and the message."""
    folder = Path.cwd()
    words = list(args)
    if words and not words[0].startswith("@") and _is_folder(words[0]):
        folder = Path(words.pop(0))
        sys.stderr.write(f"circle: working in {folder} (the first word names a folder)\n")
    files = [w[1:] for w in words if w.startswith("@") and len(w) > 1]
    message = " ".join(w for w in words if not (w.startswith("@") and len(w) > 1))
    return folder.resolve(), files, message


def _is_folder(word: str) -> bool:
    """Whether ``word`` names an existing folder; a word no path could be (too long, a NUL) does not."""
    try:
        return Path(word).is_dir()
    except (OSError, ValueError):
        return False


def _attach(folder: Path, files: list[str]) -> Attached | None:
    """The @files read for the message (see :mod:`circle.application.attachments`); a file that
    cannot be attached is bad usage, said in its own words."""
    if not files:
        return None
    from circle.application.attachments import attach_files
    from circle.application.ports.file_system import FileSystem
    from circle.application.ports.image_codec import ImageCodec
    from circle.domain.errors import AttachmentError

    from .container import make

    local, images = cast(FileSystem, make("files.local")), cast(ImageCodec, make("images.pillow"))
    try:
        attached = asyncio.run(attach_files(files, workspace=str(folder), files=local, images=images))
    except AttachmentError as exc:
        sys.stderr.write(f"circle: {exc.message}\n")
        raise SystemExit(2) from None
    return attached


def _with_stdin(message: str) -> str:
    """The message, with what was piped on stdin as a block after it (or alone, without one)."""
    from circle.application.attachments import MAX_TEXT_BYTES

    piped = read_stdin_message()
    if not piped.strip():
        return message
    if len(piped.encode("utf-8", errors="replace")) > MAX_TEXT_BYTES:
        raise BadUsage(
            f"the piped input is over the limit of {MAX_TEXT_BYTES} bytes: save it to a file and "
            "name its path in the message instead"
        )
    if not message.strip():
        return piped
    return f"{message}\n\n<stdin>\n{piped.rstrip(chr(10))}\n</stdin>"


PROVIDER_PROTOCOLS = {
    "anthropic": "anthropic",
    "anthropic-messages": "anthropic",
    "openai-chat": "openai-chat",
    "openai-completions": "openai-chat",
    "openai-responses": "openai-responses",
}
"""``--provider`` values (pi's clients pass it) that name one of Circle's protocols."""


def _use_provider(provider: str) -> None:
    """``--provider``: the protocol it names is used as ``CIRCLE_PROTOCOL`` would be (that variable
    wins when set); any other provider is ignored, with a note on stderr."""
    protocol = PROVIDER_PROTOCOLS.get(provider.strip().lower())
    if protocol is None:
        sys.stderr.write(
            f"circle: --provider {provider!r} is ignored: the endpoint comes from settings "
            "(--provider only picks a protocol: anthropic, openai-chat or openai-responses)\n"
        )
    elif not os.environ.get("CIRCLE_PROTOCOL"):
        os.environ["CIRCLE_PROTOCOL"] = protocol


def check_values(*, thinking: str | None, approval_mode: str | None, tools: list[str]) -> None:
    """Refuse an option value that names no level, mode or tool, naming the ones there are.

    What checks a value is imported only for a value given: the interface paints sooner.

    Raises:
        BadUsage: The value named.
    """
    try:
        if thinking is not None:
            from circle.domain.thinking import parse_level

            parse_level(thinking)
    except ValueError as exc:
        raise BadUsage(str(exc), param_hint="--thinking") from None
    try:
        if approval_mode is not None:
            from circle.application.approvals import parse_mode

            parse_mode(approval_mode)
    except ValueError as exc:
        raise BadUsage(str(exc), param_hint="--approval-mode") from None
    if tools:
        from circle.application.tools import builtin_tools

        known = builtin_tools()
        unknown = [name for name in tools if name not in known]
        if unknown:
            raise BadUsage(
                f"unknown tool {unknown[0]!r}: the tools are {', '.join(known)}", param_hint="--tools"
            )


def _csv(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value is not None else None
