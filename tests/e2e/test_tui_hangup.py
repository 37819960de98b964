"""A closed terminal ends the interface, whatever it was doing: the real `circle` in tmux, whose
server is killed (the kernel hangs the terminal up: SIGHUP and SIGCONT, reads at their end, writes
failing). Circle, and every command and job it started, must be gone soon after (the ``Terminal``
fixture checks that when it closes), and what the session had is stored.

Python writes to the terminal unbuffered here (``PYTHONUNBUFFERED=1``, as many environments set):
a failed write then shows at once, where a buffered one might wait for the next flush."""

from __future__ import annotations

import dataclasses
import shlex
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls
from circle.entrypoints.tui.widgets.cards import READY_S

from ._processes import descendants
from .conftest import Circle, circle_command
from .test_tui import Terminal, terminal  # noqa: F401  # the tmux fixture

pytestmark = pytest.mark.e2e


def _start(cli: Circle, terminal: Terminal, *args: str, session_of_its_own: bool = False) -> None:  # noqa: F811
    env = cli.env(TERM="xterm-256color", CIRCLE_THEME="dark", PYTHONUNBUFFERED="1")
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    script = cli.workspace.parent / "run.sh"
    command = " ".join(shlex.quote(a) for a in (circle_command(), *args))
    own = "setsid -w " if session_of_its_own else ""  # no SIGHUP reaches it: only EOF and EIO tell
    script.write_text(f"cd {shlex.quote(str(cli.workspace))} && {own}env -i {exports} {command}; sleep 30\n")
    terminal.size = (80, 24)
    terminal.start(f"bash {shlex.quote(str(script))}")


def _messages(cli: Circle, session_id: str) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(cli.home / "circle.sqlite")) as db:
        rows = db.execute(
            "SELECT role, message_json FROM checkpoints WHERE session_id = ? ORDER BY rowid", (session_id,)
        ).fetchall()
    return [(str(role), str(body)) for role, body in rows]


def _send(terminal: Terminal, text: str) -> None:  # noqa: F811
    terminal.type(text)
    terminal.keys("Enter")


def _footer(screen: str) -> bool:
    return "thinking off" in screen


def test_a_closed_terminal_ends_circle_at_the_welcome(cli: Circle, terminal: Terminal) -> None:  # noqa: F811
    _start(cli, terminal)
    terminal.wait_for(_footer, what="the footer")

    terminal.close()


def test_a_terminal_gone_without_a_hangup_signal_ends_circle_and_keeps_the_session(
    cli: Circle,
    terminal: Terminal,  # noqa: F811
) -> None:
    cli.gateway.enqueue(chat_text("Kept."))
    _start(cli, terminal, "--session-id", "hup-eof", session_of_its_own=True)
    terminal.wait_for(_footer, what="the footer")
    _send(terminal, "keep this")
    terminal.wait_for(lambda s: "Kept." in s, what="the answer")

    terminal.close()

    assert [role for role, _ in _messages(cli, "hup-eof")] == ["user", "assistant"]


def test_a_closed_terminal_ends_circle_while_keys_typed_at_its_start_are_held(
    cli: Circle,
    terminal: Terminal,  # noqa: F811
) -> None:
    _start(cli, terminal)
    terminal.wait_for(lambda s: "Starting Circle" in s or _footer(s), what="the first frame")
    terminal.type("typed before the input box was there")

    terminal.close()


def test_a_closed_terminal_stops_a_streaming_turn_and_keeps_what_it_had(
    cli: Circle,
    terminal: Terminal,  # noqa: F811
) -> None:
    slow = dataclasses.replace(chat_text("a long streamed answer " * 60, pieces=120), interval_s=0.1)
    cli.gateway.enqueue(slow)
    _start(cli, terminal, "--session-id", "hup-stream")
    terminal.wait_for(_footer, what="the footer")
    _send(terminal, "stream for me")
    terminal.wait_for(lambda s: "a long streamed" in s, what="the answer streaming")

    terminal.close()

    stored = _messages(cli, "hup-stream")
    assert stored[0][0] == "user" and "stream for me" in stored[0][1], stored


def test_a_closed_terminal_ends_circle_with_an_approval_card_open(
    cli: Circle,
    terminal: Terminal,  # noqa: F811
) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "touch made"})]), chat_text("Done."))
    _start(cli, terminal, "--session-id", "hup-card")
    terminal.wait_for(_footer, what="the footer")
    _send(terminal, "make the file")
    terminal.wait_for(lambda s: "3. Deny" in s, what="the approval card")

    terminal.close()

    stored = _messages(cli, "hup-card")
    assert [role for role, _ in stored][:2] == ["user", "assistant"], stored
    assert "make the file" in stored[0][1] and "c1" in stored[1][1]
    assert not (cli.workspace / "made").exists()


def test_a_closed_terminal_ends_circle_with_the_session_picker_open(
    cli: Circle,
    terminal: Terminal,  # noqa: F811
) -> None:
    cli.gateway.enqueue(chat_text("Hi."))
    assert cli.run("-p", "--session-id", "hup-old", "hello").returncode == 0
    _start(cli, terminal, "-r")
    terminal.wait_for(lambda s: "Resume a session" in s, what="the picker")

    terminal.close()

    assert [role for role, _ in _messages(cli, "hup-old")] == ["user", "assistant"]


def _started_command(cli: Circle, terminal: Terminal, *, keys: Callable[[], None]) -> int:  # noqa: F811
    pid_file = cli.workspace / "pid"
    deadline = time.monotonic() + 30
    keys()
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid_file.exists(), f"the command never started:\n{terminal.screen()}"
    return int(pid_file.read_text())


def test_a_closed_terminal_stops_a_running_command_and_records_the_call(
    cli: Circle,
    terminal: Terminal,  # noqa: F811
) -> None:
    command = "echo $$ > pid; sleep 300; touch after"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]))
    _start(cli, terminal, "--yolo", "--session-id", "hup-command")
    terminal.wait_for(_footer, what="the footer")
    shell = _started_command(cli, terminal, keys=lambda: _send(terminal, "wait a while"))
    assert shell in [p.pid for p in descendants(terminal.pane or 0)]

    terminal.close()  # the command's shell and its sleep are below circle: checked gone too

    stored = _messages(cli, "hup-command")
    assert "wait a while" in stored[0][1] and "c1" in stored[1][1], stored


def test_a_closed_terminal_stops_a_background_job(cli: Circle, terminal: Terminal) -> None:  # noqa: F811
    job = {"command": "echo $$ > pid; sleep 301", "background": True}
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", job)]), chat_text("It runs."))
    _start(cli, terminal, "--session-id", "hup-job")
    terminal.wait_for(_footer, what="the footer")
    _send(terminal, "start a job")
    terminal.wait_for(lambda s: "Allow once" in s, what="the approval card")
    time.sleep(READY_S + 0.2)  # a key the moment the card shows is not taken as its answer
    _started_command(cli, terminal, keys=lambda: terminal.keys("1"))
    terminal.wait_for(lambda s: "It runs." in s, what="the answer")

    terminal.close()

    stored = _messages(cli, "hup-job")
    assert [role for role, _ in stored] == ["user", "assistant", "tool", "assistant"], stored
