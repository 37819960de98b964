"""Background jobs through the installed `circle -p`: started, then stopped with their group on exit."""

from __future__ import annotations

from pathlib import Path

from circle._testing.gateway import (
    GatewayResponse,
    RecordedRequest,
    ScriptedGateway,
    chat_text,
    chat_tool_calls,
)
from circle._testing.processes import line_written, process_gone, wait_until

from .conftest import Circle


def test_print_mode_stops_a_running_job_and_its_children_when_it_leaves(cli: Circle) -> None:
    command = "sleep 30 & echo $! > job.pid; echo started"
    logs = cli.home / "background_jobs"

    def once_started(request: RecordedRequest) -> GatewayResponse:
        """The turn ends only once the job has started its child and said so."""
        started = wait_until(lambda: any(line_written(log) for log in logs.glob("*/job-1.log")))
        return chat_text("The job is running." if started else "The job never started.")

    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": command, "background": True})]), once_started
    )
    done = cli.run("-p", "--yolo", "start a job", env=cli.env(CIRCLE_JOB_WAIT="0"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The job is running.\n"
    assert "circle: stopped 1 background job\n" in done.stderr
    pid = int((cli.workspace / "job.pid").read_text())
    assert process_gone(pid), "the job's sleep outlived circle"
    results = [m["content"] for m in cli.gateway.requests[-1].json()["messages"] if m["role"] == "tool"]
    assert results[0].startswith("Started job-1 (output: ")
    (log,) = (cli.home / "background_jobs").glob("*/job-1.log")
    assert log.read_text() == "started\n"


def test_a_job_that_ended_during_the_turn_is_not_reported_as_stopped(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "echo done", "background": True})]),
        chat_tool_calls([("c2", "execute", {"command": "sleep 1"})]),
        chat_text("Both done."),
    )
    done = cli.run("-p", "--yolo", "run it")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Both done.\n"
    assert "stopped" not in done.stderr
    last = cli.gateway.requests[-1].json()["messages"]
    notices = [m["content"] for m in last if m["role"] == "user" and "job-1" in str(m["content"])]
    assert notices and str(notices[0]).startswith("[job-1 (echo done) exited with code 0; last lines of ")


def _answer_by_role(request: RecordedRequest) -> GatewayResponse:
    """The main agent starts a background subagent; the subagent runs a command, then reports."""
    messages = request.json()["messages"]
    system = str(messages[0]["content"]) if messages and messages[0]["role"] == "system" else ""
    last = messages[-1]
    if system.startswith("You are a subagent"):
        if last["role"] == "tool":
            return chat_text("sub.txt is written.")
        return chat_tool_calls([("s1", "execute", {"command": "sleep 1; echo sub-was-here > sub.txt"})])
    if last["role"] == "tool":
        return chat_text("It works in the background.")
    if last["role"] == "user" and str(last["content"]).startswith("[job-1"):
        return chat_text("The subagent is done: sub.txt is written.")
    args = {"description": "write sub.txt", "prompt": "Write sub.txt.", "background": True}
    return chat_tool_calls([("c1", "task", args)])


def test_a_background_subagent_reports_in_a_turn_of_its_own_before_print_mode_leaves(tmp_path: Path) -> None:
    with ScriptedGateway(fallback=_answer_by_role) as gateway:
        workspace = tmp_path / "work"
        workspace.mkdir()
        cli = Circle(home=tmp_path / "home", workspace=workspace, gateway=gateway)
        done = cli.run("-p", "--yolo", "have a subagent write sub.txt")
        requests = [r.json()["messages"] for r in gateway.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It works in the background.\nThe subagent is done: sub.txt is written.\n"
    assert "stopped" not in done.stderr
    assert (workspace / "sub.txt").read_text() == "sub-was-here\n"
    main = [messages for messages in requests if "subagent" not in str(messages[0]["content"])[:40]]
    started = [m["content"] for m in main[1] if m["role"] == "tool"]
    assert str(started[0]).startswith("Started job-1: the general-purpose subagent works on 'write sub.txt'")
    notice = str(main[-1][-1]["content"])
    assert notice.startswith(
        "[job-1 (subagent general-purpose: write sub.txt) finished; its report (also in "
    )
    assert notice.endswith(":\nsub.txt is written.]")
    (log,) = (cli.home / "background_jobs").glob("*/job-1.log")
    assert log.read_text() == "sub.txt is written.\n"
