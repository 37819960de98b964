"""list_jobs, stop_job and wait_jobs: the background jobs, commands (``execute`` with ``background:
true``, or moved there by the person) and subagents (``task`` with ``background: true``).

None asks for approval: listing and waiting read only Circle's own output files, and a job the model
may stop is one it started itself (and was approved to start) or one the person moved there.

wait_jobs is a subagent's (:data:`~circle.domain.subagents.SUBAGENT_ONLY`): the main agent is told of
a job's end in a turn of its own, but a subagent's work ends with its answer, so it waits for the jobs
it started before it reports. The end of a job it waited for is told to it, not queued as a notice.
"""

from __future__ import annotations

from pydantic import Field

from circle.application.jobs import Job, JobManager
from circle.domain.errors import ToolError

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

LIST_TAIL_LINES = 5
DEFAULT_WAIT_S = 300
MAX_WAIT_S = 1800


class ListJobsArgs(ToolArgs):
    pass


class StopJobArgs(ToolArgs):
    job_id: str = Field(description="The job's id (job-1, ...).")


class WaitJobsArgs(ToolArgs):
    job_ids: list[str] = Field(
        default_factory=list,
        description="The jobs to wait for (job-1, ...); none named: every job running now.",
    )
    timeout: int = Field(
        DEFAULT_WAIT_S, ge=1, le=MAX_WAIT_S, description="Seconds to wait at most; the jobs go on after it."
    )


def _jobs(ctx: ToolContext) -> JobManager:
    if ctx.jobs is None:
        raise ToolError("background jobs are not available in this session")
    return ctx.jobs


async def _list_jobs(args: ListJobsArgs, ctx: ToolContext) -> ToolOutput:
    jobs = _jobs(ctx)
    if not jobs.jobs:
        return ToolOutput("No background jobs have been started.")
    blocks = [await _describe(jobs, job) for job in jobs.jobs]
    running = len(jobs.running)
    header = f"{len(blocks)} background job{'s' if len(blocks) != 1 else ''}, {running} running:"
    return ToolOutput("\n\n".join([header, *blocks]))


async def _describe(jobs: JobManager, job: Job) -> str:
    tail = await jobs.tail(job, lines=LIST_TAIL_LINES)
    shown = "\n".join(f"  | {line}" for line in tail.split("\n")) if tail else "  (no output yet)"
    command = job.command if len(job.command) <= 200 else job.command[:200] + " …"
    what = f"$ {command}" if job.kind == "command" else f"subagent {command}"
    return f"{job.id}  {job.kind}  {job.describe()}  {what}\n  output: {job.output_path}\n{shown}"


async def _stop_job(args: StopJobArgs, ctx: ToolContext) -> ToolOutput:
    jobs = _jobs(ctx)
    job = jobs.get(args.job_id)
    if job.status != "running":
        await jobs.stop(job.id)  # what it left behind in its process group goes too
        return ToolOutput(f"{job.id} had already ended ({job.describe()}); output: {job.output_path}")
    await jobs.stop(job.id)
    return ToolOutput(f"Stopped {job.id}; output: {job.output_path}")


async def _wait_jobs(args: WaitJobsArgs, ctx: ToolContext) -> ToolOutput:
    jobs = _jobs(ctx)
    chosen = list({job.id: job for job in map(jobs.get, args.job_ids)}.values()) or jobs.running
    if not chosen:
        ended = " (list_jobs shows the ones that ended)" if jobs.jobs else ""
        return ToolOutput(f"No background job is running{ended}.")
    await jobs.wait(chosen, timeout_s=args.timeout)
    blocks = [await _ending(jobs, job, waited=args.timeout) for job in chosen]
    left = sum(job.status == "running" for job in chosen)
    if not left:
        header = f"{chosen[0].id} has ended." if len(chosen) == 1 else f"All {len(chosen)} jobs have ended."
    else:
        header = (
            f"{len(chosen) - left} of {len(chosen)} jobs ended; {left} still running after {args.timeout} s "
            "(wait_jobs again, or stop_job):"
        )
    return ToolOutput("\n\n".join([header, *blocks]))


async def _ending(jobs: JobManager, job: Job, *, waited: int) -> str:
    if job.notice is not None:
        return job.notice
    if job.status == "stopped":
        return f"[{job.id} was stopped; output: {job.output_path}]"
    tail = await jobs.tail(job, lines=LIST_TAIL_LINES)
    last = f"; last lines:\n{tail}" if tail else "; no output yet"
    return f"[{job.id} still running after {waited} s; output: {job.output_path}{last}]"


LIST_JOBS = BuiltinTool("list_jobs", ListJobsArgs, _list_jobs)
STOP_JOB = BuiltinTool("stop_job", StopJobArgs, _stop_job)
WAIT_JOBS = BuiltinTool("wait_jobs", WaitJobsArgs, _wait_jobs)

__all__ = ["LIST_JOBS", "STOP_JOB", "WAIT_JOBS"]
