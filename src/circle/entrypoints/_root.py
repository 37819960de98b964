"""The root command: `circle [FOLDER] [@file …] [MESSAGE]`, its options and its help, read by
Typer; :mod:`._run` checks the choices and runs the mode (the interface, print, JSON, line or RPC)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from circle import __version__

from ._run import BadUsage, Choices, run_choices

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
    choices = Choices(
        args=args,
        print_mode=print_mode,
        mode=mode,
        line=line,
        resume=resume,
        model=model,
        provider=provider,
        thinking=thinking,
        no_session=no_session,
        continue_last=continue_last,
        session=session,
        session_id=session_id,
        fork=fork,
        name=name,
        yolo=yolo,
        approval_mode=approval_mode,
        sandbox=sandbox,
        system_prompt=system_prompt,
        append_system_prompt=append_system_prompt,
        no_context_files=no_context_files,
        max_turns=max_turns,
        max_budget_usd=max_budget_usd,
        tools=tools,
        exclude_tools=exclude_tools,
        no_tools=no_tools,
        export=export,
        rpc_approvals=rpc_approvals,
    )
    try:
        code = run_choices(choices)
    except BadUsage as exc:
        raise typer.BadParameter(exc.message, param_hint=exc.param_hint) from None
    raise typer.Exit(code)
