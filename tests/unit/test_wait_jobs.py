"""wait_jobs: a subagent waits for background jobs and is told how they ended, instead of the session."""

from __future__ import annotations

import asyncio

import pytest

from circle.application.jobs import JobManager
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.errors import ToolError
from circle.testing import Call, FakeProcessRunner, Hang, InMemoryFileSystem, answer

from ._harness import WORKSPACE, Harness

DATA = "/data"


def harness() -> Harness:
    files = InMemoryFileSystem({f"{WORKSPACE}/.keep": ""})
    script = {"serve": Hang(output="listening\n"), "build": Hang(output="compiling\n")}
    return Harness(files=files, processes=FakeProcessRunner(script, files=files))


def setup() -> tuple[Harness, JobManager, ToolContext]:
    h = harness()
    jobs = JobManager(h.processes, h.files, folder=f"{DATA}/background_jobs/s1")
    ctx = h.context()
    ctx.jobs = jobs
    return h, jobs, ctx


async def wait_jobs(ctx: ToolContext, **args: object) -> ToolOutput:
    return await builtin_tools()["wait_jobs"].invoke(dict(args), ctx)  # type: ignore[arg-type]


async def test_wait_jobs_returns_when_the_job_ends_with_its_code_and_last_lines() -> None:
    h, jobs, ctx = setup()
    await jobs.start("build", cwd=WORKSPACE)
    waiting = asyncio.create_task(wait_jobs(ctx, job_ids=["job-1"]))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    h.processes.started[0].finish(0, "built 3 files\n")
    out = await asyncio.wait_for(waiting, 2)
    assert out.text.startswith("job-1 has ended.\n\n[job-1 (build) exited with code 0; last lines of ")
    assert "compiling\nbuilt 3 files]" in out.text
    assert jobs.take_notices() == []  # told to the one who waited, not to the session as well


async def test_without_ids_it_waits_for_every_running_job() -> None:
    h, jobs, ctx = setup()
    await jobs.start("serve", cwd=WORKSPACE)
    await jobs.start("build", cwd=WORKSPACE)
    waiting = asyncio.create_task(wait_jobs(ctx))
    await asyncio.sleep(0.01)
    h.processes.started[1].finish(2, "error\n")
    await asyncio.sleep(0.01)
    assert not waiting.done()  # job-1 still runs
    h.processes.started[0].finish(0)
    out = await asyncio.wait_for(waiting, 2)
    assert out.text.startswith("All 2 jobs have ended.")
    assert "[job-1 (serve) exited with code 0" in out.text
    assert "[job-2 (build) exited with code 2" in out.text


async def test_a_job_still_running_at_the_timeout_goes_on_and_its_end_is_a_notice_again() -> None:
    h, jobs, ctx = setup()
    await jobs.start("serve", cwd=WORKSPACE)
    out = await wait_jobs(ctx, job_ids=["job-1"], timeout=1)
    assert out.text.startswith("0 of 1 jobs ended; 1 still running after 1 s (wait_jobs again, or stop_job):")
    assert (
        "[job-1 still running after 1 s; output: /data/background_jobs/s1/job-1.log; last lines:" in out.text
    )
    assert "listening" in out.text
    assert jobs.running and not h.processes.started[0].stopped
    h.processes.started[0].finish(0)
    for _ in range(20):
        await asyncio.sleep(0)
    (notice,) = jobs.take_notices()
    assert notice.startswith("[job-1 (serve) exited with code 0")


async def test_a_job_that_had_already_ended_is_told_at_once() -> None:
    h, jobs, ctx = setup()
    await jobs.start("build", cwd=WORKSPACE)
    h.processes.started[0].finish(1, "failed\n")
    for _ in range(20):
        await asyncio.sleep(0)
    out = await asyncio.wait_for(wait_jobs(ctx, job_ids=["job-1"]), 2)
    assert out.text.startswith("job-1 has ended.\n\n[job-1 (build) exited with code 1")


async def test_a_stopped_job_and_no_running_job_and_an_unknown_id() -> None:
    _, jobs, ctx = setup()
    assert (await wait_jobs(ctx)).text == "No background job is running."
    await jobs.start("serve", cwd=WORKSPACE)
    await jobs.stop("job-1")
    out = await asyncio.wait_for(wait_jobs(ctx, job_ids=["job-1"]), 2)
    assert "[job-1 was stopped; output: /data/background_jobs/s1/job-1.log]" in out.text
    assert (
        await wait_jobs(ctx)
    ).text == "No background job is running (list_jobs shows the ones that ended)."
    with pytest.raises(ToolError, match="no background job 'job-7'"):
        await wait_jobs(ctx, job_ids=["job-7"])
    with pytest.raises(ToolError, match="timeout"):
        await wait_jobs(ctx, timeout=0)


async def test_cancelling_the_wait_leaves_the_job_to_notify_the_session() -> None:
    h, jobs, ctx = setup()
    await jobs.start("serve", cwd=WORKSPACE)
    waiting = asyncio.create_task(wait_jobs(ctx))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    h.processes.started[0].finish(0)
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(jobs.take_notices()) == 1


async def test_only_subagents_get_wait_jobs_and_an_agent_file_with_execute_gets_it_too() -> None:
    h = harness()
    h.files.put(
        f"{WORKSPACE}/.circle/agents/runner.md",
        "---\ndescription: Runs things.\ntools: read_file, execute\n---\nYou run things.",
    )
    h.model.add(
        answer("", Call("task", {"description": "a", "prompt": "a"})),
        answer("gp done"),
        answer("", Call("task", {"description": "b", "prompt": "b", "subagent_type": "explore"})),
        answer("explore done"),
        answer("", Call("task", {"description": "c", "prompt": "c", "subagent_type": "runner"})),
        answer("runner done"),
        answer("done"),
    )
    rt = h.runtime()
    rt.options.data_dir = DATA
    session = await rt.new_session()
    await session.prompt("go")
    main, general, _, explore, _, runner = ({s.name for s in r.tools} for r in h.model.requests[:6])
    assert "wait_jobs" not in main and {"list_jobs", "stop_job", "execute"} <= main
    assert "wait_jobs" in general
    assert "wait_jobs" not in explore
    assert runner == {"read_file", "execute", "wait_jobs"}
    assert "wait_jobs" not in rt.select_tools()


async def test_excluding_wait_jobs_keeps_it_from_subagents() -> None:
    h = harness()
    h.model.add(answer("", Call("task", {"description": "a", "prompt": "a"})), answer("ok"), answer("done"))
    rt = h.runtime()
    rt.options.exclude_tools = ("wait_jobs",)
    session = await rt.new_session()
    await session.prompt("go")
    assert "wait_jobs" not in {s.name for s in h.model.requests[1].tools}
