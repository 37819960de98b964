"""task with background: the subagent runs as a job; its report reaches the model as the job's notice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.application.approvals import PLAN_MODE_REFUSAL
from circle.application.jobs import notice_for_person
from circle.application.runtime import Runtime
from circle.application.session import AgentSession
from circle.application.tools import builtin_tools
from circle.domain.errors import ModelHTTPError
from circle.domain.messages import Usage
from circle.domain.model import ModelEvent, ModelRequest
from circle.testing import Call, Hang, ScriptedApprover, ScriptedModel, answer

from ._harness import WORKSPACE, Harness

DATA = "/data"


class RoutedModel:
    """The main agent's requests go to ``main``, the subagents' to ``sub`` once ``gate`` is open."""

    def __init__(self) -> None:
        self.main = ScriptedModel()
        self.sub = ScriptedModel()
        self.gate = asyncio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if "subagent" in request.system.split("\n", 1)[0]:
            await self.gate.wait()
            async for event in self.sub.stream(request):
                yield event
            return
        async for event in self.main.stream(request):
            yield event

    async def aclose(self) -> None:
        return None


def task(description: str, prompt: str, subagent_type: str = "general-purpose", call_id: str = "t1") -> Call:
    args = {"description": description, "prompt": prompt, "subagent_type": subagent_type, "background": True}
    return Call("task", args, id=call_id)


def runtime(h: Harness, model: RoutedModel) -> Runtime:
    rt = h.runtime()
    rt.ports.model = model
    rt.options.data_dir = DATA
    return rt


async def until(condition: Callable[[], object]) -> None:
    async with asyncio.timeout(5):
        while not condition():
            await asyncio.sleep(0)


def folder(session: AgentSession) -> str:
    return f"{DATA}/background_jobs/{session.session_id}"


async def idle_answer(session: AgentSession) -> str:
    await until(lambda: session.idle_turn is not None)
    assert session.idle_turn is not None
    async with asyncio.timeout(5):
        return (await session.idle_turn).answer


async def test_the_call_returns_at_once_and_the_report_comes_as_a_notice_in_a_turn_of_its_own() -> None:
    h = Harness()
    model = RoutedModel()
    model.main.add(answer("", task("find the loader", "Find the config loader.")), answer("It works on it."))
    model.sub.add(answer("It is in src/config.py:12.", usage=Usage(input=100, output=20)))
    model.main.add(answer("The loader is in src/config.py."))
    session = await runtime(h, model).new_session()
    result = await session.prompt("where is the config loaded?")
    assert result.answer == "It works on it."
    started = model.main.requests[1].messages[-1].tool_results[0]
    assert not started.is_error
    assert started.text.startswith("Started job-1: the general-purpose subagent works on 'find the loader'")
    assert session.jobs is not None
    (job,) = session.jobs.jobs
    assert (job.id, job.kind, job.status) == ("job-1", "agent", "running")
    model.gate.set()
    assert await idle_answer(session) == "The loader is in src/config.py."
    path = f"{folder(session)}/job-1.log"
    notice = model.main.requests[2].messages[-1].text
    assert notice == (
        f"[job-1 (subagent general-purpose: find the loader) finished; its report (also in {path}):\n"
        "It is in src/config.py:12.]"
    )
    said = notice_for_person(notice)  # the person's row: no brackets, no output file's path
    assert said == "job-1 (subagent general-purpose: find the loader) finished\nIt is in src/config.py:12."
    assert model.sub.requests[0].messages[0].text == "Find the config loader."
    assert h.files.files[path] == b"It is in src/config.py:12.\n"
    assert (job.status, job.describe()) == ("exited", "finished")
    assert session.loop.costs.unstored == Usage(input=100, output=20)  # counted in the session


async def test_several_run_at_once_list_jobs_shows_them_and_stop_job_cancels_one() -> None:
    h = Harness()
    model = RoutedModel()
    model.main.add(
        answer(
            "", task("alpha", "Do alpha.", call_id="t1"), task("beta", "Do beta.", "explore", call_id="t2")
        ),
        answer("Both started."),
    )
    session = await runtime(h, model).new_session()
    await session.prompt("go")
    ctx = session.loop.context
    listing = (await builtin_tools()["list_jobs"].invoke({}, ctx)).text
    assert listing.startswith("2 background jobs, 2 running:")
    assert "job-1  agent  running  subagent general-purpose: alpha" in listing
    assert "job-2  agent  running  subagent explore: beta" in listing
    stopped = await builtin_tools()["stop_job"].invoke({"job_id": "job-1"}, ctx)
    assert stopped.text.startswith("Stopped job-1")
    model.sub.add(answer("beta is done"))
    model.main.add(answer("Beta reported."))
    model.gate.set()
    assert await idle_answer(session) == "Beta reported."
    assert session.jobs is not None
    assert [(j.id, j.status) for j in session.jobs.jobs] == [("job-1", "stopped"), ("job-2", "exited")]
    notices = [
        m.text for m in model.main.requests[-1].messages if m.role == "user" and m.text.startswith("[job")
    ]
    assert len(notices) == 1 and notices[0].startswith("[job-2 (subagent explore: beta) finished")
    assert [r.messages[0].text for r in model.sub.requests] == ["Do beta."]


async def test_background_subagents_count_toward_the_job_limit_and_bad_input_is_an_error() -> None:
    h = Harness()
    h.processes.script = {"serve": Hang()}
    model = RoutedModel()
    model.main.add(
        answer("", task("a", "Do a.", call_id="t1"), task("b", "Do b.", "nope", call_id="t2")),
        answer("", task("c", "Do c.", call_id="t3"), task("d", "  ", call_id="t4")),
        answer("ok"),
    )
    session = await runtime(h, model).new_session()
    assert session.jobs is not None
    session.jobs.max_jobs = 1
    await session.prompt("go")
    results = [r for m in model.main.requests[-1].messages for r in m.tool_results]
    started, unknown, full, empty = results
    assert not started.is_error and started.text.startswith("Started job-1")
    assert unknown.is_error and "no subagent type 'nope'" in unknown.text
    assert full.is_error and "1 background jobs are running, the most at once" in full.text
    assert empty.is_error and "prompt is empty" in empty.text
    assert [job.id for job in session.jobs.jobs] == ["job-1"]
    assert await session.stop_jobs() == 1


async def test_a_background_subagents_changes_go_through_the_sessions_approver_and_plan_mode() -> None:
    approver = ScriptedApprover(allow={"read_file"})
    h = Harness(approver=approver)
    model = RoutedModel()
    model.main.add(answer("", task("write", "Write x.txt.")), answer("Started."))
    model.sub.add(
        answer("", Call("write_file", {"file_path": "x.txt", "content": "x"})),
        answer("", Call("write_file", {"file_path": "y.txt", "content": "y"})),
        answer("Could not write either."),
    )
    model.main.add(answer("Nothing was written."))
    session = await runtime(h, model).new_session()
    await session.prompt("go")
    model.gate.set()
    await until(lambda: len(model.sub.requests) == 2)
    session.loop.context.plan_mode.enter()
    assert await idle_answer(session) == "Nothing was written."
    assert [r.tool_name for r in approver.requests] == ["write_file"]  # the second never reached it
    first, second = [r for m in model.sub.requests[2].messages for r in m.tool_results]
    assert first.is_error and "scripted refusal" in first.text
    assert second.is_error and PLAN_MODE_REFUSAL in second.text
    assert f"{WORKSPACE}/x.txt" not in h.files.files and f"{WORKSPACE}/y.txt" not in h.files.files


async def test_a_failing_subagent_sends_a_failed_notice_and_a_cancelled_turn_leaves_it_running() -> None:
    h = Harness()
    model = RoutedModel()
    model.main.add(answer("", task("flaky", "Try it.")), answer("Started."))
    session = await runtime(h, model).new_session()
    await session.prompt("go")
    assert session.jobs is not None
    (job,) = session.jobs.jobs
    assert not session.cancel()  # no turn runs: the job is not the turn's
    model.sub.add(ModelHTTPError("bad request", status=400))
    model.main.add(answer("It failed."))
    model.gate.set()
    assert await idle_answer(session) == "It failed."
    notice = model.main.requests[-1].messages[-1].text
    assert notice.startswith("[job-1 (subagent general-purpose: flaky) failed; its report")
    assert "the subagent stopped with an error" in notice and "bad request" in notice
    assert job.describe() == "failed"
