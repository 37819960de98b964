"""Background jobs through the installed `circle -p`: started, then stopped with their group on exit."""

from __future__ import annotations

import time
from pathlib import Path

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _gone(pid: int, *, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_print_mode_stops_a_running_job_and_its_children_when_it_leaves(cli: Circle) -> None:
    command = "sleep 30 & echo $! > job.pid; echo started"
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": command, "background": True})]),
        chat_text("The job is running."),
    )
    done = cli.run("-p", "--yolo", "start a job")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The job is running.\n"
    assert "circle: stopped 1 background job\n" in done.stderr
    pid = int((cli.workspace / "job.pid").read_text())
    assert _gone(pid), "the job's sleep outlived circle"
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
