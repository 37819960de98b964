"""Background jobs over fakes: execute with background, list_jobs, stop_job, notices and job turns."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from circle.application.jobs import MAX_JOBS, JobManager, notice_for_person
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.ports.process_runner import ProcessResult
from circle.application.runtime import Runtime
from circle.application.session import MAX_JOB_TURNS, AgentSession
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.errors import ApprovalDeniedError, ToolError
from circle.domain.messages import Message
from circle.domain.model import ModelRequest
from circle.testing import Call, FakeProcessRunner, Hang, InMemoryFileSystem, answer

from ._harness import WORKSPACE, Harness

DATA = "/data"
SCRIPT: dict[str, ProcessResult | Hang] = {
    "serve": Hang(output="listening on 8000\n"),
    "build": ProcessResult(exit_code=2, output="compiling\nerror: no rule\n"),
}


@dataclass
class YieldingApprover:
    """Allows everything, letting other tasks run first (so a job that just ended is noticed)."""

    requests: list[ApprovalRequest] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        for _ in range(10):
            await asyncio.sleep(0)
        return ApprovalDecision(allowed=True)


class Refuser:
    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=False, reason="no")


def harness(**kwargs: object) -> Harness:
    files = InMemoryFileSystem({f"{WORKSPACE}/.keep": ""})
    h = Harness(files=files, processes=FakeProcessRunner(SCRIPT, files=files), **kwargs)  # type: ignore[arg-type]
    return h


def runtime(h: Harness) -> Runtime:
    rt = h.runtime()
    rt.options.data_dir = DATA
    return rt


def manager(h: Harness) -> JobManager:
    return JobManager(h.processes, h.files, folder=f"{DATA}/background_jobs/s1")


def context(h: Harness, jobs: JobManager) -> ToolContext:
    ctx = h.context()
    ctx.jobs = jobs
    return ctx


async def call(h: Harness, ctx: ToolContext, name: str, **args: object) -> ToolOutput:
    return await builtin_tools()[name].invoke(dict(args), ctx)  # type: ignore[arg-type]


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def last_user_text(request: ModelRequest) -> str:
    users = [m for m in request.messages if m.role == "user"]
    return users[-1].text if users else ""


async def test_execute_in_the_background_starts_a_job_with_its_output_file() -> None:
    h = harness()
    jobs = manager(h)
    out = await call(h, context(h, jobs), "execute", command="serve", background=True)
    path = f"{DATA}/background_jobs/s1/job-1.log"
    assert out.text.startswith(f"Started job-1 (output: {path}); you will be told when it ends")
    assert not out.is_error
    (started,) = h.processes.started
    assert (started.command, started.cwd, started.output_path) == ("serve", WORKSPACE, path)
    assert h.files.files[path] == b"listening on 8000\n"
    assert [job.id for job in jobs.running] == ["job-1"]
    assert h.processes.calls == []  # nothing ran in the foreground


async def test_listeners_hear_of_each_job_as_it_starts() -> None:
    h = harness()
    jobs = manager(h)
    heard: list[tuple[str, str]] = []
    jobs.on_started(lambda job: heard.append((job.id, job.status)))
    await call(h, context(h, jobs), "execute", command="serve", background=True)
    await call(h, context(h, jobs), "execute", command="serve", background=True)
    assert heard == [("job-1", "running"), ("job-2", "running")]


async def test_a_background_command_is_approved_like_a_foreground_one() -> None:
    h = harness(approver=Refuser())
    with pytest.raises(ApprovalDeniedError):
        await call(h, context(h, manager(h)), "execute", command="serve", background=True)
    with pytest.raises(ToolError, match="refused"):
        await call(h, context(h, manager(h)), "execute", command="rm -rf /", background=True)
    assert h.processes.started == []


async def test_without_a_job_manager_background_is_refused() -> None:
    h = harness()
    with pytest.raises(ToolError, match="background jobs are not available"):
        await call(h, h.context(), "execute", command="serve", background=True)
    with pytest.raises(ToolError, match="not available"):
        await call(h, h.context(), "list_jobs")


async def test_ids_go_on_from_the_logs_already_in_the_folder() -> None:
    h = harness()
    h.files.put(f"{DATA}/background_jobs/s1/job-7.log", "old\n")
    jobs = manager(h)
    assert (await jobs.start("serve", cwd=WORKSPACE)).id == "job-8"
    assert (await jobs.start("serve", cwd=WORKSPACE)).id == "job-9"


async def test_list_jobs_shows_status_command_and_last_lines() -> None:
    h = harness()
    jobs = manager(h)
    ctx = context(h, jobs)
    assert (await call(h, ctx, "list_jobs")).text == "No background jobs have been started."
    await jobs.start("serve", cwd=WORKSPACE)
    await jobs.start("build", cwd=WORKSPACE)
    await settle()
    listing = (await call(h, ctx, "list_jobs")).text
    assert listing.startswith("2 background jobs, 1 running:")
    assert "job-1  command  running  $ serve" in listing and "  | listening on 8000" in listing
    assert "job-2  command  exited with code 2  $ build" in listing and "  | error: no rule" in listing


async def test_stop_job_stops_one_job_and_sends_no_notice() -> None:
    h = harness()
    jobs = manager(h)
    ctx = context(h, jobs)
    await jobs.start("serve", cwd=WORKSPACE)
    await jobs.start("serve", cwd=WORKSPACE)
    out = await call(h, ctx, "stop_job", job_id="job-2")
    assert out.text.startswith("Stopped job-2")
    await settle()
    assert [p.stopped for p in h.processes.started] == [False, True]
    assert [job.status for job in jobs.jobs] == ["running", "stopped"]
    assert jobs.take_notices() == []
    with pytest.raises(ToolError, match="no background job 'job-9'"):
        await call(h, ctx, "stop_job", job_id="job-9")


async def test_at_most_sixteen_jobs_run_at_once() -> None:
    h = harness()
    jobs = manager(h)
    for _ in range(MAX_JOBS):
        await jobs.start("serve", cwd=WORKSPACE)
    with pytest.raises(ToolError, match="16 background jobs are running"):
        await call(h, context(h, jobs), "execute", command="serve", background=True)
    await jobs.stop("job-3")
    assert (await jobs.start("serve", cwd=WORKSPACE)).id == "job-17"


async def test_stop_all_stops_every_running_job() -> None:
    h = harness()
    jobs = manager(h)
    for command in ("serve", "serve", "build"):
        await jobs.start(command, cwd=WORKSPACE)
    await settle()
    assert await jobs.stop_all() == 2
    assert all(not p.running for p in h.processes.started)
    assert [job.status for job in jobs.jobs] == ["stopped", "stopped", "exited"]


async def test_a_notice_reaches_the_model_in_the_next_request_of_the_turn() -> None:
    h = harness(approver=YieldingApprover())

    def end_the_job(request: ModelRequest) -> list[object]:
        h.processes.started[0].finish(0, "served 3 requests\n")
        return answer("", Call("execute", {"command": "true"}))  # type: ignore[return-value]

    h.processes.script = {**SCRIPT, "true": ProcessResult(exit_code=0, output="")}
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True})),
        end_the_job,  # type: ignore[arg-type]
        answer("It ended."),
    )
    session = await runtime(h).new_session()
    result = await session.prompt("serve it")
    assert result.answer == "It ended."
    notice = last_user_text(h.model.requests[2])
    assert notice.startswith("[job-1 (serve) exited with code 0; last lines of ")
    assert notice.endswith("listening on 8000\nserved 3 requests]")
    # the person's row: no brackets, no output file's path
    said = notice_for_person(notice)
    assert said == "job-1 (serve) exited with code 0\nlistening on 8000\nserved 3 requests", said
    history = [cp.message for cp in await h.store.history(session.session_id)]
    assert [m.role for m in history][-2:] == ["user", "assistant"]  # stored like steering
    assert session.idle_turn is None


async def test_a_job_ending_while_idle_starts_a_turn_for_it() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True})),
        answer("Started the server."),
        answer("The server stopped by itself."),
    )
    session = await runtime(h).new_session()
    assert (await session.prompt("serve it")).answer == "Started the server."
    h.processes.started[0].finish(1, "crashed\n")
    await settle()
    assert session.idle_turn is not None
    result = await session.idle_turn
    assert result.answer == "The server stopped by itself."
    assert last_user_text(h.model.requests[2]).startswith("[job-1 (serve) exited with code 1")
    assert session.job_turns == 1


async def _start_jobs(h: Harness, count: int) -> AgentSession:
    calls = [Call("execute", {"command": "serve", "background": True}, id=f"c{i}") for i in range(count)]
    h.model.add(answer("", *calls), answer("All started."))
    session = await runtime(h).new_session()
    await session.prompt("start them")
    return session


async def test_at_most_ten_job_turns_in_a_row_until_the_person_speaks() -> None:
    h = harness()
    session = await _start_jobs(h, MAX_JOB_TURNS + 2)
    for process in h.processes.started[:MAX_JOB_TURNS]:
        process.finish(0)
        await settle()
        assert session.idle_turn is not None
        await session.idle_turn
    requests = len(h.model.requests)
    h.processes.started[MAX_JOB_TURNS].finish(0)
    await settle()
    assert len(h.model.requests) == requests and session.job_turns == MAX_JOB_TURNS
    await session.prompt("what happened?")
    assert session.job_turns == 0
    messages = h.model.requests[-1].messages
    assert messages[-1].text.startswith(f"[job-{MAX_JOB_TURNS + 1} (serve) exited with code 0; last lines")
    assert messages[-2] == Message.user("what happened?")
    h.processes.started[MAX_JOB_TURNS + 1].finish(0)
    await settle()
    assert session.idle_turn is not None and session.job_turns == 1


async def test_closing_the_runtime_stops_the_jobs() -> None:
    h = harness()
    session = await _start_jobs(h, 2)
    assert await session.stop_jobs() == 2
    assert all(p.stopped for p in h.processes.started)
    assert await runtime(h).stop_jobs() == 0
