"""Print mode waits for the model's background jobs (CIRCLE_JOB_WAIT) and gives their notices turns."""

from __future__ import annotations

import time

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def test_print_mode_waits_for_a_job_and_prints_the_answer_of_its_turn(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1; echo built", "background": True})]),
        chat_text("Started the build."),
        chat_text("The build printed built."),
    )
    done = cli.run("-p", "--yolo", "build in the background")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Started the build.\nThe build printed built.\n"
    notice = cli.gateway.requests[-1].json()["messages"][-1]
    assert notice["role"] == "user" and "job-1" in notice["content"] and "built" in notice["content"]
    assert "stopped" not in done.stderr


def test_circle_job_wait_bounds_the_wait_then_stops_the_job(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 60", "background": True})]),
        chat_text("Started."),
    )
    began = time.monotonic()
    done = cli.run("-p", "--yolo", "start it", env=cli.env(CIRCLE_JOB_WAIT="1"))
    assert time.monotonic() - began < 15
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Started.\n"
    assert "circle: stopped 1 background job\n" in done.stderr


def test_a_bad_circle_job_wait_is_one_clear_line(cli: Circle) -> None:
    expected = {
        "soon": "circle: CIRCLE_JOB_WAIT must be a number of seconds, not 'soon'\n",
        "-3": "circle: CIRCLE_JOB_WAIT must be zero or more seconds, not '-3'\n",
    }
    for value, line in expected.items():
        done = cli.run("-p", "--yolo", "hi", env=cli.env(CIRCLE_JOB_WAIT=value))
        assert done.returncode == 1
        assert done.stderr == line
