"""`circle rewind` through the installed command: a turn's edits and commands put back, in a new process."""

from __future__ import annotations

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def a_turn_that_edits_and_runs_a_command(cli: Circle) -> None:
    (cli.workspace / "a.txt").write_text("hello\n")
    (cli.workspace / "old.txt").write_text("old\n")
    cli.gateway.enqueue(
        chat_tool_calls(
            [
                ("c1", "edit_file", {"file_path": "a.txt", "old_string": "hello", "new_string": "bye"}),
                ("c2", "execute", {"command": "echo new > made.txt; rm old.txt"}),
            ]
        ),
        chat_text("Done."),
    )
    done = cli.run("-p", "--yolo", "change things")
    assert done.returncode == 0, done.stderr
    assert (cli.workspace / "a.txt").read_text() == "bye\n"
    assert (cli.workspace / "made.txt").exists() and not (cli.workspace / "old.txt").exists()


def test_rewind_puts_back_a_turns_edits_and_command_changes_after_a_restart(cli: Circle) -> None:
    a_turn_that_edits_and_runs_a_command(cli)
    (cli.workspace / "mine.txt").write_text("the person's\n")

    listed = cli.run("rewind", "--list")
    assert listed.returncode == 0, listed.stderr
    assert "turn 1" in listed.stdout and "'change things'" in listed.stdout
    assert "modified  a.txt" in listed.stdout
    assert "created   made.txt  (by a command)" in listed.stdout
    assert "deleted   old.txt  (by a command)" in listed.stdout

    asked = cli.run("rewind")
    assert asked.returncode == 1
    assert "made.txt is deleted" in asked.stdout and "pass --yes" in asked.stderr
    assert (cli.workspace / "a.txt").read_text() == "bye\n"

    done = cli.run("rewind", "--yes")
    assert done.returncode == 0, done.stderr
    assert "rewound turn 1: 3 files put back" in done.stdout
    assert (cli.workspace / "a.txt").read_text() == "hello\n"
    assert not (cli.workspace / "made.txt").exists()
    assert (cli.workspace / "old.txt").read_text() == "old\n"
    assert (cli.workspace / "mine.txt").read_text() == "the person's\n"
    assert "(rewound)" in cli.run("rewind", "--list").stdout


def test_rewind_refuses_when_a_file_changed_since(cli: Circle) -> None:
    a_turn_that_edits_and_runs_a_command(cli)
    (cli.workspace / "made.txt").write_text("the person kept working\n")
    refused = cli.run("rewind", "--yes")
    assert refused.returncode == 1
    assert "cannot rewind turn 1: 1 file changed since; nothing was restored" in refused.stderr
    assert "made.txt was changed after the turn" in refused.stderr
    assert (cli.workspace / "a.txt").read_text() == "bye\n"
    assert not (cli.workspace / "old.txt").exists()


def test_rewind_without_sessions_says_so(cli: Circle) -> None:
    done = cli.run("rewind")
    assert done.returncode == 1
    assert "nothing to rewind" in done.stderr
