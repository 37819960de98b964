"""execute: a shell command in the workspace, in its own process group.

A command that names a credential file is refused before it is shown for approval. It runs with
``ctx.env`` (secrets stripped by the entrypoint), and its output comes back with saved secrets written
``%NAME%`` and other passwords and tokens ``[REDACTED]``. With a turn journal in the context, the
workspace is snapshotted before and after the command, so that a rewind can put back what it changed.

With ``background`` (and the session's job manager in the context) the command is classified and
approved as in the foreground, then started as a background job (see :mod:`circle.application.jobs`):
no timeout, no snapshots (a rewind does not undo what a job changes), and the call returns at once.

In a session with a job manager a foreground command runs through :meth:`JobManager.run_waited`, so
the person can move it to the background while it is waited on (ctrl+b, the RPC ``background``
command): the call then returns at once with its output so far, and the command goes on as a job
whose end is told to the model like any job's (the snapshot after it is taken at the move). While
it is waited on, its output so far goes to ``ctx.progress`` (masked and redacted as the result is).
"""

from __future__ import annotations

from pydantic import Field

from circle.application.jobs import MovedToBackground
from circle.application.ports.process_runner import ProcessResult
from circle.domain.approval_rules import command_subjects
from circle.domain.approvals import classify_command
from circle.domain.errors import ToolError
from circle.domain.redact import redact

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput
from .command_review import review_command
from .linked_paths import linked_commands
from .protected_places import restore_changes, take_snapshot, watched

OUTPUT_LIMIT = 30_000
DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600


class ExecuteArgs(ToolArgs):
    command: str = Field(description="The shell command (bash) to run in the workspace.")
    timeout: int = Field(
        DEFAULT_TIMEOUT_S, ge=1, le=MAX_TIMEOUT_S, description="Seconds before the command is stopped."
    )
    background: bool = Field(
        False,
        description="Run as a background job: the call returns at once and you are told when it ends.",
    )


async def _execute(args: ExecuteArgs, ctx: ToolContext) -> ToolOutput:
    if not args.command.strip():
        raise ToolError("the command is empty")
    if args.background and ctx.jobs is None:
        raise ToolError("background jobs are not available in this session: run it in the foreground")
    verdict = classify_command(
        args.command,
        workspace=ctx.workspace,
        home=ctx.home,
        data_dir=ctx.data_dir,
        secret_names=tuple(ctx.secrets.values),
    )
    if verdict.kind == "refuse":
        raise ToolError(f"refused: {verdict.reason}")
    await ctx.check_command(args.command, words=verdict.words)
    review = await review_command(verdict, ctx)
    linked = await linked_commands((*verdict.words, *verdict.resolved), ctx.files, workspace=ctx.workspace)
    await ctx.approve(
        "execute",
        "execute",
        args.command,
        subject=args.command,
        subjects=command_subjects(verdict.words) or (args.command,),
        always_ask=review.always_ask,
        ask_reason=review.ask_reason or review.reason,
        safe=review.safe and not review.always_ask,
        resolved=command_subjects((*verdict.resolved, *linked)),
    )
    env = ctx.command_env(review.env) if review.env else ctx.env
    if args.background and ctx.jobs is not None:
        job = await ctx.jobs.start(args.command, cwd=ctx.workspace, env=env or None)
        return ToolOutput(
            f"Started {job.id} (output: {job.output_path}); you will be told when it ends. "
            "list_jobs shows it, stop_job stops it.",
            shown=f"started in the background as {job.id} · /jobs shows it",
        )
    places = watched(ctx.workspace, data_dir=ctx.data_dir, home=None if ctx.home in ("", "~") else ctx.home)
    guard = (
        None if review.protected_write else await take_snapshot(ctx.files, *places, cache=ctx.places_cache)
    )
    snapshot = await ctx.journal.before_command() if ctx.journal is not None else None
    try:
        result = await _run(args, ctx, env)
    finally:
        undone = (
            await restore_changes(ctx.files, guard, places[0], cache=ctx.places_cache)
            if guard is not None
            else []
        )
        if ctx.journal is not None:
            await ctx.journal.after_command(snapshot)
    output = redact(ctx.secrets.mask(result.output)).rstrip("\n")
    if undone:
        output += (
            "\n[Circle undid what this command changed in places that always ask first, since nobody "
            "approved it: " + "; ".join(undone) + ". Ask the person, or use write_file, which asks.]"
        )
    if isinstance(result, MovedToBackground):
        job = result.job
        so_far = f"Its output so far:\n{output}" if output else "It has written no output so far."
        return ToolOutput(
            f"The person moved this command to the background: it goes on as {job.id} "
            f"(output: {job.output_path}), and you will be told when it ends. "
            f"list_jobs shows it, stop_job stops it. {so_far}",
            shown=f"moved to the background as {job.id} · /jobs shows it" + (f"\n{output}" if output else ""),
        )
    if result.timed_out:
        note = f"[stopped after {args.timeout} s: timed out]"
        return ToolOutput(f"{output}\n{note}" if output else note, is_error=True)
    status = f"[exit code {result.exit_code}]"
    text = f"{output}\n{status}" if output else f"(no output)\n{status}"
    return ToolOutput(text, is_error=result.exit_code != 0)


async def _run(args: ExecuteArgs, ctx: ToolContext, env: dict[str, str]) -> ProcessResult | MovedToBackground:
    """The command run to its end, or moved to the background while it ran (with job manager only)."""
    if ctx.jobs is not None:
        progress = ctx.progress
        return await ctx.jobs.run_waited(
            args.command,
            cwd=ctx.workspace,
            timeout_s=args.timeout,
            output_limit=OUTPUT_LIMIT,
            env=env or None,
            on_output=None
            if progress is None
            else lambda text: progress(redact(ctx.secrets.mask(text)).rstrip("\n")),
        )
    return await ctx.processes.run(
        args.command,
        cwd=ctx.workspace,
        timeout_s=args.timeout,
        output_limit=OUTPUT_LIMIT,
        env=env or None,
    )


EXECUTE = BuiltinTool("execute", ExecuteArgs, _execute)
