"""Sessions end to end: one writer per session across real processes, forks, names and deletion."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle, circle_command


def _chat_requests(cli: Circle) -> list[dict[str, object]]:
    return [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")]


def _checkpoints(cli: Circle, session_id: str) -> list[tuple[str, str]]:
    if not (cli.home / "circle.sqlite").exists():
        return []
    with closing(sqlite3.connect(cli.home / "circle.sqlite")) as db:
        rows = db.execute(
            "SELECT id, role FROM checkpoints WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
    return [(str(cp_id), str(role)) for cp_id, role in rows]


_HELD = "until [ -e go ]; do sleep 0.05; done; echo slept"
"""The first Circle's command: it runs until the test says go, so the session stays open however
slowly the second Circle starts."""


def _burn_cpus() -> list[subprocess.Popen[bytes]]:
    """Two busy loops per core, as a full run of the suite on a small machine makes."""
    burn = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(2 * (os.cpu_count() or 1))]


def _open_first(cli: Circle, session_id: str) -> subprocess.Popen[str]:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": _HELD})]), chat_text("Slept."))
    first = cli.popen("-p", "--yolo", "--session-id", session_id, "take a nap")
    deadline = time.monotonic() + 60
    while len(_chat_requests(cli)) < 1 and time.monotonic() < deadline:  # its session is open
        time.sleep(0.05)
    assert _chat_requests(cli), "the first Circle never asked the model"
    return first


def _refused(cli: Circle, first: subprocess.Popen[str], session_id: str) -> None:
    second = cli.run("-p", "--session", session_id, "--yolo", "x", timeout=120)
    assert second.returncode == 1, second.stderr
    holder = f"(pid {first.pid} on host {socket.gethostname()}, since "
    assert second.stderr.startswith(f"circle: session {session_id} is open in another Circle {holder}")
    assert len(second.stderr.splitlines()) == 1
    assert first.poll() is None  # still at work, undisturbed


def _finish(cli: Circle, first: subprocess.Popen[str], session_id: str) -> None:
    (cli.workspace / "go").touch()
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert out == "Slept.\n"
    assert len(_chat_requests(cli)) == 2  # the refused Circles sent nothing
    cli.gateway.enqueue(chat_text("Awake."))
    after = cli.run("-p", "--session", session_id, "--yolo", "and now?")  # released on exit
    assert after.returncode == 0, after.stderr
    roles = [role for _, role in _checkpoints(cli, session_id)]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant"]


def test_a_second_circle_cannot_write_a_session_another_has_open(cli: Circle) -> None:
    first = _open_first(cli, "busy-1")
    try:
        _refused(cli, first, "busy-1")
        _finish(cli, first, "busy-1")
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


def test_a_live_holder_is_never_taken_over_under_cpu_load(cli: Circle) -> None:
    """Busy cores slow every Circle down and may starve the holder's heartbeat past the TTL: a
    holder whose process still runs on this host keeps the session all the same."""
    burners = _burn_cpus()
    first = None
    try:
        first = _open_first(cli, "busy-2")
        _refused(cli, first, "busy-2")
        with closing(sqlite3.connect(cli.home / "circle.sqlite", timeout=30)) as db, db:
            db.execute("UPDATE leases SET expires_at = 1.0 WHERE session_id = 'busy-2'")  # starved
        _refused(cli, first, "busy-2")
        _finish(cli, first, "busy-2")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
        if first is not None and first.poll() is None:
            first.kill()
            first.wait()


def test_a_killed_circles_session_opens_at_once(cli: Circle) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "sleep 5"})]))
    first = cli.popen("-p", "--yolo", "--session-id", "dead-1", "wait long")
    deadline = time.monotonic() + 30
    while not _chat_requests(cli) and time.monotonic() < deadline:  # the store is made by now
        time.sleep(0.05)
    while len(_checkpoints(cli, "dead-1")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    first.kill()
    first.communicate(timeout=30)
    cli.gateway.enqueue(chat_text("Back."))

    started = time.monotonic()
    again = cli.run("-p", "--session", "dead-1", "--yolo", "are you there?")

    assert again.returncode == 0, again.stderr
    assert again.stdout == "Back.\n"
    assert time.monotonic() - started < 10  # not the 15 s TTL


def test_fork_sends_the_conversation_up_to_the_checkpoint_and_names_show(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("It is 4."), chat_text("It is 6."))
    assert cli.run("-p", "--yolo", "--session-id", "src", "what is 2+2?").returncode == 0
    assert cli.run("-p", "--yolo", "--session", "src", "and 3+3?").returncode == 0
    [_, (answer_id, role), *_] = _checkpoints(cli, "src")
    assert role == "assistant"
    cli.gateway.enqueue(chat_text("It is 10."))

    forked = cli.run(
        "-p", "--yolo", "--fork", f"src:{answer_id}", "--session-id", "fk", "--name", "side quest", "and 5+5?"
    )

    assert forked.returncode == 0, forked.stderr
    assert forked.stdout == "It is 10.\n"
    sent = _chat_requests(cli)[-1]["messages"]
    assert isinstance(sent, list)
    assert [(m["role"], m.get("content")) for m in sent[1:]] == [
        ("user", "what is 2+2?"),
        ("assistant", "It is 4."),
        ("user", "and 5+5?"),
    ]
    assert len(_checkpoints(cli, "src")) == 4  # the source is untouched
    listing = cli.run("sessions")
    assert listing.returncode == 0, listing.stderr
    lines = {line.split()[0]: line for line in listing.stdout.splitlines()}
    assert "side quest" in lines["fk"] and "4 msgs" in lines["fk"]
    assert " B " in lines["fk"] and str(cli.workspace) in lines["fk"]
    shown = cli.run("sessions", "show", "fk")
    assert shown.returncode == 0, shown.stderr
    assert "session fk (side quest)" in shown.stdout and f"forked from src at {answer_id}" in shown.stdout
    assert "user      and 5+5?" in shown.stdout and "[main head]" in shown.stdout
    cli.gateway.enqueue(chat_text("From the head."))
    at_head = cli.run("-p", "--yolo", "--fork", "src", "--session-id", "fk2", "go on")
    assert at_head.returncode == 0, at_head.stderr
    whole = _chat_requests(cli)[-1]["messages"]
    assert isinstance(whole, list) and len(whole) == 1 + 5  # the system prompt, four stored, the new one


def test_a_fork_of_an_unknown_checkpoint_is_one_clear_line(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Hi."))
    assert cli.run("-p", "--yolo", "--session-id", "src", "hello").returncode == 0

    done = cli.run("-p", "--yolo", "--fork", "src:nope", "x")

    assert done.returncode == 1
    assert done.stderr == "circle: no checkpoint nope in session src\n"


def test_deleting_asks_and_yes_skips_the_question(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("One."), chat_text("Two."))
    assert cli.run("-p", "--yolo", "--session-id", "gone", "first").returncode == 0
    assert cli.run("-p", "--yolo", "--session-id", "kept", "second").returncode == 0

    refused = cli.run("sessions", "delete", "gone")  # stdin is not a terminal: nobody to ask
    assert refused.returncode == 1
    assert "not deleting session gone" in refused.stderr and "--yes" in refused.stderr

    master, slave = os.openpty()
    with os.fdopen(master, "w") as terminal:
        terminal.write("n\n")
        terminal.flush()
        declined = subprocess.run(
            [circle_command(), "sessions", "delete", "gone"],
            cwd=cli.workspace,
            env=cli.env(),
            stdin=slave,
            capture_output=True,
            text=True,
            timeout=60,
        )
    os.close(slave)
    assert declined.returncode == 0, declined.stderr
    assert "delete session gone (2 messages)? [y/N]" in declined.stderr
    assert declined.stdout == "kept session gone\n"

    deleted = cli.run("sessions", "delete", "gone", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout == "deleted session gone (2 messages)\n"
    listing = cli.run("sessions").stdout
    assert "gone" not in listing and "kept" in listing
    assert _checkpoints(cli, "gone") == []
    again = cli.run("sessions", "delete", "gone", "--yes")
    assert again.returncode == 1 and "no session gone" in again.stderr
