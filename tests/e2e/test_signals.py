"""Signals from outside: a closed terminal or dropped SSH connection (SIGHUP) stops Circle as
SIGTERM does, its running command with it, and the call is recorded; SIGKILL, which Circle cannot
answer, still ends the foreground command (the parent-death signal), so nothing runs unwatched."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle

_COMMAND = "echo $$ > pid; sleep 4; touch after"


def _running(pid: int) -> bool:
    """Whether the process runs (a zombie nobody reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _started(cli: Circle, session_id: str) -> tuple[subprocess.Popen[str], int]:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": _COMMAND})]))
    process = cli.popen("-p", "--yolo", "--session-id", session_id, "wait a while")
    pid_file = cli.workspace / "pid"
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid_file.exists(), "the command never started"
    return process, int(pid_file.read_text())


def _stored_results(cli: Circle, session_id: str) -> list[str]:
    with closing(sqlite3.connect(cli.home / "circle.sqlite")) as db:
        rows = db.execute(
            "SELECT message_json FROM checkpoints WHERE session_id = ? AND role = 'tool'", (session_id,)
        ).fetchall()
    return [str(row[0]) for row in rows]


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_a_hangup_stops_circle_and_its_command_and_records_the_call(cli: Circle, sig: signal.Signals) -> None:
    process, pid = _started(cli, "hup")

    process.send_signal(sig)
    _, err = process.communicate(timeout=30)

    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert not _running(pid)
    time.sleep(4.5)
    assert not (cli.workspace / "after").exists()  # the command did not run on
    [result] = _stored_results(cli, "hup")
    assert "c1" in result


def test_a_killed_circle_takes_its_foreground_command_with_it(cli: Circle) -> None:
    process, pid = _started(cli, "kill")

    process.kill()
    process.communicate(timeout=30)

    deadline = time.monotonic() + 5
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid)
    time.sleep(4.5)
    assert not (cli.workspace / "after").exists()  # the rest of the command never ran

    cli.gateway.enqueue(chat_text("I will check first."))
    again = cli.run("-p", "--yolo", "--session", "kill", "what happened?")
    assert again.returncode == 0, again.stderr
    sent = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")][-1]
    [result] = [m["content"] for m in sent["messages"] if m["role"] == "tool"]
    assert result.startswith("Interrupted: Circle stopped while this call was still running"), result
    assert "check before running it again" in result


def test_a_hangup_stops_the_interface_and_its_command_and_records_the_call(cli: Circle) -> None:
    import shlex
    import shutil
    import uuid

    from .conftest import circle_command
    from .test_tui import Terminal

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": _COMMAND})]))
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in cli.env(TERM="xterm-256color").items())
    script = cli.workspace.parent / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(cli.workspace))} && env -i {exports} {shlex.quote(circle_command())}"
        " --yolo --session-id tui-hup 'wait a while'; echo EXIT=$?; sleep 30\n"
    )
    terminal = Terminal(uuid.uuid4().hex[:8])
    try:
        terminal.start(f"bash {shlex.quote(str(script))}")
        pid_file = cli.workspace / "pid"
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        shell = int(pid_file.read_text())
        circle = int(Path(f"/proc/{shell}/stat").read_text().rsplit(")", 1)[1].split()[1])

        os.kill(circle, signal.SIGHUP)

        screen = terminal.wait_for(lambda s: "EXIT=" in s, what="the exit")
    finally:
        terminal.close()
    assert "EXIT=130" in screen and "circle --session tui-hup" in screen
    assert not _running(shell)
    time.sleep(4.5)
    assert not (cli.workspace / "after").exists()
    [result] = _stored_results(cli, "tui-hup")
    assert "c1" in result
