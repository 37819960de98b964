"""Moving a waited-on command to the background (ctrl+b, the RPC ``background`` command), over fakes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from circle.application.jobs import JobManager
from circle.application.ports.process_runner import ProcessResult
from circle.application.runtime import Runtime
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.application.tools.shell import OUTPUT_LIMIT
from circle.application.turn_journal import TurnJournal
from circle.domain.messages import ToolResultPart
from circle.domain.secrets import Secrets
from circle.testing import (
    Call,
    FakeProcessRunner,
    Hang,
    InMemoryFileJournal,
    InMemoryFileSystem,
    InMemoryWorkspaceSnapshots,
    answer,
)

from ._harness import WORKSPACE, Harness

DATA = "/data"
FOLDER = f"{DATA}/background_jobs/s1"
SCRIPT: dict[str, ProcessResult | Hang] = {
    "serve": Hang(output="listening on 8000\n"),
    "make": ProcessResult(exit_code=2, output="compiling\nerror: no rule\n"),
    "seq": ProcessResult(exit_code=0, output="".join(f"{i}\n" for i in range(20_000))),
}


def harness() -> Harness:
    files = InMemoryFileSystem({f"{WORKSPACE}/.keep": ""})
    return Harness(files=files, processes=FakeProcessRunner(SCRIPT, files=files))


def manager(h: Harness) -> JobManager:
    return JobManager(h.processes, h.files, folder=FOLDER)


def context(h: Harness, jobs: JobManager) -> ToolContext:
    ctx = h.context()
    ctx.jobs = jobs
    return ctx


def runtime(h: Harness) -> Runtime:
    rt = h.runtime()
    rt.options.data_dir = DATA
    return rt


async def execute(ctx: ToolContext, command: str, **args: object) -> ToolOutput:
    return await builtin_tools()["execute"].invoke({"command": command, **args}, ctx)  # type: ignore[dict-item]


async def until(condition: Callable[[], object]) -> None:
    async with asyncio.timeout(5):
        while not condition():
            await asyncio.sleep(0)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_foreground_command_with_jobs_gives_its_result_and_leaves_no_job_or_file() -> None:
    h = harness()
    jobs = manager(h)
    out = await execute(context(h, jobs), "make")
    assert out.is_error and out.text == "compiling\nerror: no rule\n[exit code 2]"
    (started,) = h.processes.started
    assert (started.output_path, started.output_limit) == (f"{FOLDER}/job-1.log", OUTPUT_LIMIT)
    assert f"{FOLDER}/job-1.log" not in h.files.files  # deleted, as if it had run with ProcessRunner.run
    assert jobs.jobs == [] and jobs.waiting == []
    assert (await jobs.start("serve", cwd=WORKSPACE)).id == "job-1"  # its id was given back


async def test_foreground_output_over_the_limit_keeps_head_and_tail() -> None:
    h = harness()
    out = await execute(context(h, manager(h)), "seq")
    assert "characters cut …" in out.text
    assert out.text.startswith("0\n1\n2\n") and out.text.endswith("19999\n[exit code 0]")
    assert len(out.text) < OUTPUT_LIMIT + 100


async def test_moving_a_waited_on_command_returns_at_once_and_it_goes_on_as_a_job() -> None:
    h = harness()
    jobs = manager(h)
    assert await jobs.move_waiting_to_background() == 0  # nothing waits
    running = asyncio.create_task(execute(context(h, jobs), "serve"))
    await until(lambda: jobs.waiting)
    assert jobs.waiting == ["serve"]
    assert await jobs.move_waiting_to_background() == 1
    async with asyncio.timeout(5):
        out = await running
    path = f"{FOLDER}/job-1.log"
    assert not out.is_error
    assert out.text.startswith(
        f"The person moved this command to the background: it goes on as job-1 (output: {path})"
    )
    assert out.text.endswith("Its output so far:\nlistening on 8000")
    (process,) = h.processes.started
    assert process.running and not process.stopped  # the same process goes on, not restarted
    assert [(job.id, job.kind, job.status) for job in jobs.jobs] == [("job-1", "command", "running")]
    assert jobs.waiting == [] and await jobs.move_waiting_to_background() == 0
    process.finish(0, "served 3 requests\n")
    await settle()
    (notice,) = jobs.take_notices()
    assert notice.startswith(f"[job-1 (serve) exited with code 0; last lines of {path}:")
    assert notice.endswith("listening on 8000\nserved 3 requests]")
    assert h.files.files[path] == b"listening on 8000\nserved 3 requests\n"


async def test_a_moved_command_is_listed_and_stop_job_stops_it_without_a_notice() -> None:
    h = harness()
    jobs = manager(h)
    ctx = context(h, jobs)
    running = asyncio.create_task(execute(ctx, "serve"))
    await until(lambda: jobs.waiting)
    await jobs.move_waiting_to_background()
    await running
    listing = (await builtin_tools()["list_jobs"].invoke({}, ctx)).text
    assert "job-1  command  running  $ serve" in listing and "  | listening on 8000" in listing
    out = await builtin_tools()["stop_job"].invoke({"job_id": "job-1"}, ctx)
    assert out.text.startswith("Stopped job-1")
    await settle()
    assert h.processes.started[0].stopped and jobs.take_notices() == []


async def test_a_command_that_times_out_while_waited_on_is_stopped_and_is_no_job() -> None:
    h = harness()
    jobs = manager(h)
    result = await jobs.run_waited("serve", cwd=WORKSPACE, timeout_s=0.05, output_limit=100)
    assert isinstance(result, ProcessResult)
    assert result == ProcessResult(exit_code=None, output="listening on 8000\n", timed_out=True)
    assert h.processes.started[0].stopped
    assert jobs.jobs == [] and jobs.waiting == [] and await jobs.move_waiting_to_background() == 0


async def test_cancelling_the_call_stops_the_waited_on_command() -> None:
    h = harness()
    jobs = manager(h)
    running = asyncio.create_task(execute(context(h, jobs), "serve"))
    await until(lambda: jobs.waiting)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert h.processes.started[0].stopped
    assert jobs.waiting == [] and jobs.jobs == []


async def test_the_output_so_far_has_secrets_masked_and_tokens_redacted() -> None:
    h = harness()
    h.processes.script = {
        "show": Hang(output="key=s3cr3t-value-123 token=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
    }
    jobs = manager(h)
    ctx = context(h, jobs)
    ctx.secrets = Secrets({"API_KEY": "s3cr3t-value-123"})
    running = asyncio.create_task(execute(ctx, "show"))
    await until(lambda: jobs.waiting)
    await jobs.move_waiting_to_background()
    out = await running
    assert "key=%API_KEY%" in out.text
    assert "s3cr3t-value-123" not in out.text and "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in out.text


async def test_the_workspace_is_snapshotted_before_the_command_and_when_it_is_moved() -> None:
    h = harness()
    journal = InMemoryFileJournal()
    snapshots = InMemoryWorkspaceSnapshots(h.files, journal)
    jobs = manager(h)
    ctx = context(h, jobs)
    ctx.journal = TurnJournal(journal, session_id="s1", workspace=WORKSPACE, snapshots=snapshots)
    ctx.journal.begin("t1")
    running = asyncio.create_task(execute(ctx, "serve"))
    await until(lambda: jobs.waiting)
    h.files.put(f"{WORKSPACE}/made.txt", "made by the command\n")
    await jobs.move_waiting_to_background()
    await running
    assert snapshots.taken == [WORKSPACE, WORKSPACE]
    assert [receipt.path for _, _, receipt in journal.recorded] == [f"{WORKSPACE}/made.txt"]


async def test_in_a_session_the_moved_commands_end_starts_a_turn_with_its_notice() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve"})),
        answer("It runs in the background now."),
        answer("The server has stopped."),
    )
    session = await runtime(h).new_session()
    assert session.jobs is not None
    jobs = session.jobs
    turn = asyncio.create_task(session.prompt("serve it"))
    await until(lambda: jobs.waiting)
    assert await jobs.move_waiting_to_background() == 1
    async with asyncio.timeout(5):
        result = await turn
    assert result.answer == "It runs in the background now."
    moved: ToolResultPart = h.model.requests[1].messages[-1].tool_results[0]
    assert not moved.is_error and "it goes on as job-1" in moved.text
    h.processes.started[0].finish(1, "crashed\n")
    await until(lambda: session.idle_turn is not None)
    assert session.idle_turn is not None
    assert (await session.idle_turn).answer == "The server has stopped."
    notice = h.model.requests[2].messages[-1].text
    assert notice.startswith("[job-1 (serve) exited with code 1; last lines of ")
    assert notice.endswith("listening on 8000\ncrashed]")


async def test_a_moved_command_counts_as_running_and_the_move_is_not_held_to_the_limit() -> None:
    h = harness()
    jobs = JobManager(h.processes, h.files, folder=FOLDER, max_jobs=1)
    await jobs.start("serve", cwd=WORKSPACE)
    running = asyncio.create_task(execute(context(h, jobs), "serve"))
    await until(lambda: jobs.waiting)
    assert await jobs.move_waiting_to_background() == 1
    assert "job-2" in (await running).text
    assert [job.id for job in jobs.running] == ["job-1", "job-2"]
    assert await jobs.stop_all() == 2
    assert all(p.stopped for p in h.processes.started)
