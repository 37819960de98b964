"""list_jobs and stop_job: the background jobs, commands (``execute`` with ``background: true``, or moved
there by the person) and subagents (``task`` with ``background: true``).

Neither asks for approval: listing reads only Circle's own output files, and a job the model may
stop is one it started itself (and was approved to start) or one the person moved there.
"""

from __future__ import annotations

from pydantic import Field

from circle.application.jobs import Job, JobManager
from circle.domain.errors import ToolError

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

LIST_TAIL_LINES = 5


class ListJobsArgs(ToolArgs):
    pass


class StopJobArgs(ToolArgs):
    job_id: str = Field(description="The job's id, as execute or task returned it (job-1, ...).")


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


LIST_JOBS = BuiltinTool("list_jobs", ListJobsArgs, _list_jobs)
STOP_JOB = BuiltinTool("stop_job", StopJobArgs, _stop_job)

__all__ = ["LIST_JOBS", "STOP_JOB"]
