"""The root command: `circle [FOLDER] [@file …] [MESSAGE]` and the mode it runs in (the interface,
print, JSON, line or RPC)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from circle import __version__
from circle.domain.sandbox import SANDBOX_MODES

from ._crash import guard
from ._options import RunOptions, read_stdin_message

root = typer.Typer(
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Commands: circle trust [FOLDER], circle sessions [FOLDER], circle models, "
    "circle export ID, circle import FILE. "
    "Exit codes: 0 done, 1 the turn failed, 2 bad usage, 130 interrupted.",
)


def _split(args: list[str]) -> tuple[Path, list[str], str]:
    """FOLDER (when the first word is an existing folder), @files, and the message."""
    folder = Path.cwd()
    words = list(args)
    if words and not words[0].startswith("@") and Path(words[0]).is_dir():
        folder = Path(words.pop(0))
    files = [w[1:] for w in words if w.startswith("@") and len(w) > 1]
    message = " ".join(w for w in words if not (w.startswith("@") and len(w) > 1))
    return folder.resolve(), files, message


def _attach(folder: Path, files: list[str], message: str) -> str:
    blocks = []
    for name in files:
        path = (folder / name).resolve()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise typer.BadParameter(
                f"cannot attach @{name}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        blocks.append(f'<file path="{name}">\n{text}\n</file>')
    return "\n\n".join([*blocks, message]) if blocks else message


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
        typer.Option("--yolo", help="Approval mode auto: nothing asks (always-refused commands still are)."),
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
    version: Annotated[bool, typer.Option("--version", "-V", help="Print the version.")] = False,
) -> None:
    """Circle, a coding agent for the terminal."""
    if version:
        typer.echo(f"circle {__version__}")
        return
    if mode not in (None, "json", "rpc"):
        raise typer.BadParameter(f"unknown mode {mode!r}: use json or rpc", param_hint="--mode")
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
    if resume and (print_mode or mode is not None or line):
        raise typer.BadParameter("-r picks a session in the full-screen interface: use --session ID here")
    headless = print_mode or mode == "json"
    line = line or (not headless and mode is None and not sys.stdin.isatty())
    if line and (print_mode or mode is not None):
        raise typer.BadParameter("--line goes without -p and --mode")
    if headless:
        message = _attach(folder, files, message or read_stdin_message())
        if not message.strip():
            raise typer.BadParameter("no message: give one after the options, or pipe it on stdin")
    else:
        message = _attach(folder, files, message) if message.strip() or files else ""
    opts = RunOptions(
        workspace=folder,
        message=message,
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
