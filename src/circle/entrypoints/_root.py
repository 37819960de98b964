"""The root command: `circle [FOLDER] [@file …] [MESSAGE]` and the mode it runs in (the interface,
print, JSON, line or RPC)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from circle import __version__
from circle.domain.sandbox import SANDBOX_MODES

from ._crash import guard
from ._options import RunOptions, read_stdin_message

if TYPE_CHECKING:
    from circle.application.attachments import Attached

root = typer.Typer(add_completion=False, context_settings={"help_option_names": ["-h", "--help"]})

EXIT_CODES = "Exit codes: 0 done, 1 the turn failed, 2 bad usage, 130 interrupted."


def show_commands_in_help() -> None:
    """Put the subcommands, each with its one-line help, and the exit codes under ``circle --help``
    (read from the subcommands themselves, only when the help is asked for)."""
    from rich.markup import escape

    from ._commands import commands

    lines = []
    for info in commands.registered_commands:
        callback = info.callback
        assert callback is not None
        name = info.name or callback.__name__
        summary = (callback.__doc__ or "").strip().split("\n\n")[0]
        lines.append(escape(f"circle {name}: {' '.join(summary.split())}"))
    for info in root.registered_commands:
        info.epilog = "\n\n".join(["Commands:", *lines, EXIT_CODES])


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
    cannot be attached is bad usage."""
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
    except AttachmentError as exc:  # bad usage, said in its own words
        sys.stderr.write(f"circle: {exc.message}\n")
        raise typer.Exit(2) from None
    return attached


def _with_stdin(message: str) -> str:
    """The message, with what was piped on stdin as a block after it (or alone, without one)."""
    from circle.application.attachments import MAX_TEXT_BYTES

    piped = read_stdin_message()
    if not piped.strip():
        return message
    if len(piped.encode("utf-8", errors="replace")) > MAX_TEXT_BYTES:
        raise typer.BadParameter(
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
        typer.echo(
            f"circle: --provider {provider!r} is ignored: the endpoint comes from settings "
            "(--provider only picks a protocol: anthropic, openai-chat or openai-responses)",
            err=True,
        )
    elif not os.environ.get("CIRCLE_PROTOCOL"):
        os.environ["CIRCLE_PROTOCOL"] = protocol


def _check_values(*, thinking: str | None, approval_mode: str | None, tools: list[str]) -> None:
    """Refuse an option value that names no level, mode or tool, naming the ones there are.

    What checks a value is imported only for a value given: the interface paints sooner."""
    try:
        if thinking is not None:
            from circle.domain.thinking import parse_level

            parse_level(thinking)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--thinking") from None
    try:
        if approval_mode is not None:
            from circle.application.approvals import parse_mode

            parse_mode(approval_mode)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--approval-mode") from None
    if tools:
        from circle.application.tools import builtin_tools

        known = builtin_tools()
        unknown = [name for name in tools if name not in known]
        if unknown:
            raise typer.BadParameter(
                f"unknown tool {unknown[0]!r}: the tools are {', '.join(known)}", param_hint="--tools"
            )


def _csv(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value is not None else None


@root.command()
def run(
    args: Annotated[
        list[str] | None, typer.Argument(help="FOLDER, @files and MESSAGE, each optional", show_default=False)
    ] = None,
    print_mode: Annotated[
        bool, typer.Option("-p", "--print", help="Run one prompt and print the answer.")
    ] = False,
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode", help="json: one JSON event a line; rpc: JSON commands on stdin (see docs/rpc.md)."
        ),
    ] = None,
    line: Annotated[
        bool, typer.Option("--line", help="Line mode: one prompt a line on stdin, each answer printed.")
    ] = False,
    resume: Annotated[bool, typer.Option("-r", "--resume", help="Pick a session to continue.")] = False,
    model: Annotated[str | None, typer.Option("--model", help="The model id.")] = None,
    provider: Annotated[
        str | None,
        typer.Option("--provider", help="A protocol name (anthropic, openai-responses, ...); else ignored."),
    ] = None,
    thinking: Annotated[str | None, typer.Option("--thinking", help="Thinking level.")] = None,
    no_session: Annotated[bool, typer.Option("--no-session", help="Keep nothing.")] = False,
    continue_last: Annotated[
        bool, typer.Option("-c", "--continue", help="Continue the folder's last session.")
    ] = False,
    session: Annotated[str | None, typer.Option("--session", help="Continue this session.")] = None,
    session_id: Annotated[str | None, typer.Option("--session-id", help="Id for the new session.")] = None,
    fork: Annotated[
        str | None,
        typer.Option(
            "--fork",
            metavar="ID[:MSG]",
            help="Start a new session from session ID up to checkpoint MSG (else its last message).",
        ),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Name the session.")] = None,
    yolo: Annotated[
        bool,
        typer.Option(
            "--yolo",
            help="Approval mode auto: nothing asks (always-refused commands still are); the folder "
            "must be trusted all the same.",
        ),
    ] = False,
    approval_mode: Annotated[
        str | None,
        typer.Option("--approval-mode", help="default, accept-edits, read-only or auto."),
    ] = None,
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            help="Run commands under bubblewrap: off, read-only, or workspace-write "
            "(only the workspace and /tmp writable); no network unless settings.json allows it.",
        ),
    ] = None,
    system_prompt: Annotated[
        str | None, typer.Option("--system-prompt", help="Replace the system prompt.")
    ] = None,
    append_system_prompt: Annotated[str | None, typer.Option("--append-system-prompt")] = None,
    no_context_files: Annotated[
        bool, typer.Option("--no-context-files", help="Skip AGENTS.md/CLAUDE.md.")
    ] = False,
    max_turns: Annotated[
        int | None, typer.Option("--max-turns", min=1, help="Stop after N tool rounds.")
    ] = None,
    max_budget_usd: Annotated[
        float | None,
        typer.Option("--max-budget-usd", min=0, help="Stop when the session has cost this much (USD)."),
    ] = None,
    tools: Annotated[str | None, typer.Option("--tools", help="Only these tools (comma-separated).")] = None,
    exclude_tools: Annotated[
        str | None, typer.Option("--exclude-tools", help="Leave these tools out.")
    ] = None,
    no_tools: Annotated[bool, typer.Option("--no-tools", help="Offer no tools.")] = False,
    export: Annotated[
        Path | None,
        typer.Option("--export", help="Then write the session here: .md, .html or .jsonl."),
    ] = None,
    rpc_approvals: Annotated[
        bool,
        typer.Option(
            "--rpc-approvals",
            help="RPC mode: ask the client what would ask (pi's extension_ui_request); else it is not run.",
        ),
    ] = False,
    version: Annotated[bool, typer.Option("--version", "-V", help="Print the version.")] = False,
) -> None:
    """Circle, a coding agent for the terminal."""
    if version:
        typer.echo(f"circle {__version__}")
        return
    if mode not in (None, "json", "rpc"):
        raise typer.BadParameter(f"unknown mode {mode!r}: use json or rpc", param_hint="--mode")
    if provider is not None:
        _use_provider(provider)
    if session and (continue_last or session_id):
        raise typer.BadParameter("--session goes alone: not with --continue or --session-id")
    if fork is not None and (session or continue_last or not fork.partition(":")[0]):
        raise typer.BadParameter("--fork takes ID[:MSG], and not with --session or --continue")
    if sandbox is not None and sandbox not in SANDBOX_MODES:
        raise typer.BadParameter(
            f"unknown sandbox mode {sandbox!r}: use {', '.join(SANDBOX_MODES)}", param_hint="--sandbox"
        )
    if export is not None:
        from circle.domain.errors import ConfigError
        from circle.domain.export import format_from_name

        try:
            format_from_name(export.name)
        except ConfigError as exc:
            raise typer.BadParameter(exc.message, param_hint="--export") from None
    folder, files, message = _split(args or [])
    if mode == "rpc" and (files or message.strip() or resume or line or print_mode):
        raise typer.BadParameter(
            "RPC mode takes no message, @file, -p, -r or --line: send prompts as commands on stdin",
            param_hint="--mode rpc",
        )
    if rpc_approvals and mode != "rpc":
        raise typer.BadParameter("--rpc-approvals goes with --mode rpc", param_hint="--rpc-approvals")
    if resume and (print_mode or mode is not None or line):
        raise typer.BadParameter("-r picks a session in the full-screen interface: use --session ID here")
    headless = print_mode or mode == "json"
    line = line or (not headless and mode is None and not sys.stdin.isatty())
    if line and (print_mode or mode is not None):
        raise typer.BadParameter("--line goes without -p and --mode")
    named_tools = [*(_csv(tools) or []), *(_csv(exclude_tools) or [])]
    _check_values(thinking=thinking, approval_mode=approval_mode, tools=named_tools)
    if headless:
        message, attached = _with_stdin(message), _attach(folder, files)
        if not message.strip():
            raise typer.BadParameter("no message: give one after the options, or pipe it on stdin")
    else:
        attached = _attach(folder, files)
    opts = RunOptions(
        workspace=folder,
        message=message,
        attached=attached,
        mode=mode or ("line" if line else "print" if print_mode else "tui"),
        model=model,
        no_session=no_session,
        continue_last=continue_last,
        session=session,
        session_id=session_id,
        yolo=yolo,
        approval_mode=approval_mode,
        sandbox=sandbox,
        system_prompt=system_prompt,
        append_system_prompt=append_system_prompt,
        context_files=not no_context_files,
        max_turns=max_turns,
        max_budget_usd=max_budget_usd,
        tools=[] if no_tools else _csv(tools),
        exclude_tools=_csv(exclude_tools) or [],
        thinking=thinking,
        export=export,
        fork=fork,
        name=name,
        resume=resume,
        rpc_approvals=rpc_approvals,
    )
    raise typer.Exit(_run_mode(opts))


def _run_mode(opts: RunOptions) -> int:
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
