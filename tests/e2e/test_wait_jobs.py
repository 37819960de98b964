"""wait_jobs through the installed `circle -p`: a subagent waits for the real command it started."""

from __future__ import annotations

import json
from pathlib import Path

from circle._testing.gateway import (
    GatewayResponse,
    RecordedRequest,
    ScriptedGateway,
    chat_text,
    chat_tool_calls,
)

from .conftest import Circle

COMMAND = "sleep 1; echo built > out.txt; echo build finished"


def _answer_by_role(request: RecordedRequest) -> GatewayResponse:
    """The main agent runs a subagent; it starts a background build, waits for it, then reports."""
    messages = request.json()["messages"]
    system = str(messages[0]["content"]) if messages and messages[0]["role"] == "system" else ""
    last = messages[-1]
    if system.startswith("You are a subagent"):
        if last["role"] == "user":
            return chat_tool_calls([("s1", "execute", {"command": COMMAND, "background": True})])
        if str(last["content"]).startswith("Started job-1"):
            return chat_tool_calls([("s2", "wait_jobs", {"job_ids": ["job-1"], "timeout": 30})])
        return chat_text("The build says: " + str(last["content"]))
    if last["role"] == "tool":
        return chat_text("Reported.")
    return chat_tool_calls([("c1", "task", {"description": "build", "prompt": "Build it and report."})])


def test_a_subagent_waits_for_its_background_build_and_reports_how_it_ended(tmp_path: Path) -> None:
    with ScriptedGateway(fallback=_answer_by_role) as gateway:
        workspace = tmp_path / "work"
        workspace.mkdir()
        cli = Circle(home=tmp_path / "home", workspace=workspace, gateway=gateway)
        done = cli.run("-p", "--yolo", "have a subagent build it")
        bodies = [r.json() for r in gateway.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Reported.\n"
    assert "stopped" not in done.stderr
    assert (workspace / "out.txt").read_text() == "built\n"
    main = [b for b in bodies if not str(b["messages"][0]["content"]).startswith("You are a subagent")]
    sub = [b for b in bodies if str(b["messages"][0]["content"]).startswith("You are a subagent")]
    assert "wait_jobs" not in {t["function"]["name"] for t in main[0]["tools"]}
    assert "wait_jobs" in {t["function"]["name"] for t in sub[0]["tools"]}
    report = next(m["content"] for m in main[-1]["messages"] if m["role"] == "tool")
    assert report.startswith("The build says: job-1 has ended.\n\n[job-1 (sleep 1; echo built > out.txt;")
    assert "exited with code 0; last lines of " in report and report.endswith("build finished]")
    # the subagent was told; the main agent gets no notice of job-1 on top of the report
    assert "[job-1" not in json.dumps([m for b in main for m in b["messages"] if m["role"] == "user"])
