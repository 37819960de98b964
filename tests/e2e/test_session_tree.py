"""A session's names, titles, labels and branches as a person uses them: export and import keep
the name, line mode gives a title, `circle sessions label` names a checkpoint, `--session
ID:CHECKPOINT` goes on from any checkpoint on a new branch of the same session, and `sessions
show` shows both."""

from __future__ import annotations

import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from circle._testing.gateway import chat_text

from .conftest import Circle, circle_command


def _checkpoints(cli: Circle, session_id: str) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(cli.home / "circle.sqlite")) as db:
        rows = db.execute(
            "SELECT id, role FROM checkpoints WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def _sent(cli: Circle) -> list[tuple[str, object]]:
    body = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")][-1]
    return [(m["role"], m.get("content")) for m in body["messages"][1:]]


def _listed(cli: Circle, session_id: str) -> str:
    listing = cli.run("sessions")
    assert listing.returncode == 0, listing.stderr
    return next(line for line in listing.stdout.splitlines() if line.startswith(session_id))


def test_export_and_import_keep_the_sessions_name(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Hi."))
    assert cli.run("-p", "--yolo", "--session-id", "named", "--name", "the plan", "hello").returncode == 0
    assert cli.run("export", "named", "--output", "s.jsonl").returncode == 0

    imported = cli.run("import", "s.jsonl")

    assert imported.returncode == 0, imported.stderr
    assert "the plan" in _listed(cli, imported.stdout.strip())


def test_a_line_mode_session_is_titled_by_its_first_message(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Hi."))
    cli.run("trust", str(cli.workspace))

    done = cli.run("--line", "--yolo", "--session-id", "lined", stdin="fix the login bug\n")

    assert done.returncode == 0, done.stderr
    assert _listed(cli, "lined").endswith("fix the login bug")


def test_a_checkpoint_is_labelled_and_a_session_goes_on_from_it_on_a_new_branch(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("It is 4."), chat_text("It is 6."))
    assert cli.run("-p", "--yolo", "--session-id", "tree", "what is 2+2?").returncode == 0
    assert cli.run("-p", "--yolo", "--session", "tree", "and 3+3?").returncode == 0
    [_, (answer_id, role), *_] = _checkpoints(cli, "tree")
    assert role == "assistant"

    labelled = cli.run("sessions", "label", f"tree:{answer_id}", "before 3+3")
    assert labelled.returncode == 0, labelled.stderr
    assert labelled.stdout == f"labelled {answer_id} of session tree: before 3+3\n"
    cli.gateway.enqueue(chat_text("It is 10."))
    branched = cli.run("-p", "--yolo", "--session", f"tree:{answer_id}", "and 5+5?")

    assert branched.returncode == 0, branched.stderr
    assert branched.stdout == "It is 10.\n"
    assert _sent(cli) == [("user", "what is 2+2?"), ("assistant", "It is 4."), ("user", "and 5+5?")]
    assert len(_checkpoints(cli, "tree")) == 6  # the same session: nothing forked out
    shown = cli.run("sessions", "show", "tree")
    assert shown.returncode == 0, shown.stderr
    assert f"{answer_id}  assistant It is 4.  [before 3+3]" in shown.stdout
    assert "[main head]" in shown.stdout and "[branch-1 head]" in shown.stdout
    assert "branches: main, branch-1" in shown.stdout

    cli.gateway.enqueue(chat_text("Still 10."))
    again = cli.run("-p", "--yolo", "--session", "tree", "and now?")  # goes on where it was last
    assert again.returncode == 0, again.stderr
    assert _sent(cli)[-3:] == [("user", "and 5+5?"), ("assistant", "It is 10."), ("user", "and now?")]
    labelled_head = cli.run("sessions", "label", "tree", "done")
    assert labelled_head.returncode == 0, labelled_head.stderr


def test_a_bad_label_or_checkpoint_is_one_clear_line(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("Hi."))
    assert cli.run("-p", "--yolo", "--session-id", "s", "hello").returncode == 0

    missing = cli.run("sessions", "label", "s:nope", "x")
    unknown = cli.run("-p", "--yolo", "--session", "s:nope", "x")
    nobody = cli.run("sessions", "label", "ghost", "x")

    assert missing.returncode == 1 and missing.stderr == "circle: no checkpoint nope in session s\n"
    assert unknown.returncode == 1 and unknown.stderr == "circle: no checkpoint nope in session s\n"
    assert nobody.returncode == 1 and "no session ghost" in nobody.stderr


def test_a_session_of_another_folder_works_in_its_own_folder_and_says_so(cli: Circle, tmp_path: Path) -> None:
    cli.gateway.enqueue(chat_text("Hi."), chat_text("Still there."))
    assert cli.run("-p", "--yolo", "--session-id", "home-s", "hello").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    done = subprocess.run(
        [circle_command(), "-p", "--yolo", "--session", "home-s", "where are you?"],
        cwd=elsewhere,
        env=cli.env(),
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr == f"circle: session home-s works in {cli.workspace}, its own folder\n"
    body = [r.json() for r in cli.gateway.requests if r.path.endswith("/chat/completions")][-1]
    assert str(cli.workspace) in body["messages"][0]["content"]


def test_the_interface_opens_a_session_of_another_folder_in_its_own_folder(
    cli: Circle, tmp_path: Path
) -> None:
    import shlex
    import shutil
    import uuid

    from .test_tui import Terminal

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    cli.gateway.enqueue(chat_text("Hi."))
    assert cli.run("-p", "--yolo", "--session-id", "home-t", "hello").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in cli.env(TERM="xterm-256color").items())
    script = tmp_path / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(elsewhere))} && env -i {exports} {shlex.quote(circle_command())}"
        " --session home-t; echo EXIT=$?; sleep 30\n"
    )
    terminal = Terminal(uuid.uuid4().hex[:8])
    try:
        terminal.start(f"bash {shlex.quote(str(script))}")
        terminal.wait_for(lambda s: "thinking" in s, what="the footer")  # no trust question for elsewhere
        terminal.keys("C-c")
        terminal.keys("C-c")
        screen = terminal.wait_for(lambda s: "EXIT=" in s, what="the exit")
    finally:
        terminal.close()
    said = f"circle: session home-t works in {cli.workspace}, its own folder"
    assert said in screen.replace("\n", "") or " ".join(said.split()) in " ".join(screen.split())


def test_export_writes_the_branch_the_session_goes_on_from(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("It is 4."), chat_text("It is 6."), chat_text("It is 10."))
    assert cli.run("-p", "--yolo", "--session-id", "tree", "what is 2+2?").returncode == 0
    assert cli.run("-p", "--yolo", "--session", "tree", "and 3+3?").returncode == 0
    [_, (answer_id, _), *_] = _checkpoints(cli, "tree")
    assert cli.run("-p", "--yolo", "--session", f"tree:{answer_id}", "and 5+5?").returncode == 0

    shown = cli.run("export", "tree")
    cli.run("export", "tree", "--output", "t.html")

    assert shown.returncode == 0, shown.stderr
    assert "and 5+5?" in shown.stdout and "It is 10." in shown.stdout
    assert "and 3+3?" not in shown.stdout and "It is 6." not in shown.stdout
    page = (cli.workspace / "t.html").read_text()
    assert "It is 10." in page and "It is 6." not in page
