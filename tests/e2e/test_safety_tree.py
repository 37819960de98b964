"""What the execute tool checks on the real tree, through the installed `circle`: the files a command
reads (globs, recursion, redirects), a repository's own git config and history, the always-ask places
a command changes unseen (put back after it), and words naming Circle's data folder."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Circle
from .test_safety import execute, run_calls

SECRET = "sk-live-0123456789abcdefghij"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _trusted(cli: Circle) -> None:
    cli.run("trust", str(cli.workspace))


def _sent(cli: Circle) -> str:
    """Everything the model endpoint received."""
    return "\n".join(request.body.decode() for request in cli.gateway.requests)


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def test_a_recursive_read_that_reaches_a_credential_file_asks_and_is_refused_where_nobody_answers(
    cli: Circle,
) -> None:
    _trusted(cli)
    (cli.workspace / ".env").write_text(f"SALT={SECRET}\n")
    (cli.workspace / "src").mkdir()
    (cli.workspace / "src" / "app.py").write_text("SALT = load()\n")
    for flags in ((), ("--yolo",)):
        results = run_calls(cli, [execute("c1", "grep -r SALT .")], *flags)
        assert "not approved" in results[0] and ".env (a credential file)" in results[0], results
        assert "grep tool" in results[0]
    assert SECRET not in _sent(cli)
    results = run_calls(cli, [execute("c1", "grep -r SALT src")])
    assert "src/app.py" in results[0] and "[exit code 0]" in results[0], results


def test_a_glob_that_expands_to_a_credential_file_is_refused(cli: Circle) -> None:
    _trusted(cli)
    (cli.workspace / "deploy").mkdir()
    (cli.workspace / "deploy" / "server.pem").write_text(f"-----BEGIN KEY-----\n{SECRET}\n")
    (cli.workspace / "deploy" / "notes.txt").write_text("notes\n")
    (cli.workspace / ".envrc").write_text(f"export T={SECRET}\n")
    for command in ("cat deploy/*", "cat .[^.]*", "cat < .envrc", "head deploy/?erver.*"):
        results = run_calls(cli, [execute("c1", command)], "--yolo")
        assert "credential file" in results[0] and "[exit code" not in results[0], (command, results)
    assert SECRET not in _sent(cli)


@needs_git
def test_git_is_not_known_read_only_in_a_repository_whose_config_runs_a_program(cli: Circle) -> None:
    _trusted(cli)
    evil = cli.workspace / "evil"
    _git(cli.workspace, "init", "-q", "--bare", str(evil))
    marker = cli.workspace / "pwned"
    _git(evil, "config", "core.bare", "false")
    _git(evil, "config", "core.worktree", "..")
    _git(evil, "config", "core.fsmonitor", f"touch {marker}; false")
    results = run_calls(cli, [execute("c1", "cd evil && git status")])
    assert "not approved" in results[0] and "core.fsmonitor" in results[0], results
    results = run_calls(cli, [execute("c1", "cd evil && git log --oneline")], "--approval-mode", "read-only")
    assert "not approved" in results[0], results
    assert not marker.exists()


@needs_git
def test_known_read_only_git_still_runs_and_turns_off_the_repositorys_pager(cli: Circle) -> None:
    _trusted(cli)
    _git(cli.workspace, "init", "-q")
    (cli.workspace / "a.txt").write_text("alpha\n")
    _git(cli.workspace, "add", "a.txt")
    _git(cli.workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    results = run_calls(cli, [execute("c1", "git status --short && git log --oneline")])
    assert "first" in results[0] and "[exit code 0]" in results[0], results


@needs_git
def test_git_that_shows_contents_asks_where_the_history_holds_a_credential_file(cli: Circle) -> None:
    _trusted(cli)
    _git(cli.workspace, "init", "-q")
    (cli.workspace / ".env").write_text(f"TOKEN={SECRET}\n")
    _git(cli.workspace, "add", "-f", ".env")
    _git(cli.workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "oops")
    _git(cli.workspace, "rm", "-q", "--cached", ".env")
    (cli.workspace / ".env").unlink()
    _git(cli.workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "remove")
    for command in ("git log -p", "git show HEAD~1", "git log --oneline -p"):
        results = run_calls(cli, [execute("c1", command)], "--yolo")
        assert "not approved" in results[0] and ".env" in results[0], (command, results)
    assert SECRET not in _sent(cli)
    results = run_calls(cli, [execute("c1", "git log --oneline")])
    assert "oops" in results[0], results


def test_an_always_ask_place_changed_unseen_is_put_back(cli: Circle) -> None:
    _trusted(cli)
    hooks = cli.workspace / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (cli.workspace / ".git" / "config").write_text("[core]\n\tbare = false\n")
    approvals = cli.home / "approvals.json"
    approvals.write_text("[]\n")
    script = (
        "import os\n"
        "open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\necho owned\\n')\n"
        "open(os.environ['CIRCLE_HOME'] + '/approvals.json', 'w').write('[{\"tool\": \"*\", "
        '"pattern": "*", "effect": "allow"}]\')\n'
        "open('.git/config', 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n')\n"
    )
    (cli.workspace / "x.py").write_text(script)
    results = run_calls(cli, [execute("c1", "python3 x.py")], "--yolo")
    assert "Circle undid" in results[0], results
    assert not (hooks / "pre-commit").exists()
    assert json.loads(approvals.read_text()) == []
    assert "fsmonitor" not in (cli.workspace / ".git" / "config").read_text()


@needs_git
def test_ordinary_git_changes_to_the_config_and_a_new_repository_are_kept(cli: Circle) -> None:
    _trusted(cli)
    command = "git init -q sub && cd sub && git checkout -q -b work"
    results = run_calls(cli, [execute("c1", command)], "--yolo")
    assert "Circle undid" not in results[0], results
    assert (cli.workspace / "sub" / ".git" / "config").exists()
    _git(cli.workspace, "init", "-q")
    (cli.workspace / "upstream.py").write_text(
        "open('.git/config', 'a').write('[branch \"main\"]\\n\\tremote = origin\\n')\n"
    )
    results = run_calls(cli, [execute("c1", "python3 upstream.py")], "--yolo")
    assert "Circle undid" not in results[0], results
    assert "remote = origin" in (cli.workspace / ".git" / "config").read_text()


def test_a_command_naming_circles_data_folder_always_asks(cli: Circle) -> None:
    _trusted(cli)
    for command in (f"ls {cli.home}", 'cat "$CIRCLE_HOME/settings.json"', f"touch {cli.home}/x"):
        results = run_calls(cli, [execute("c1", command)], "--yolo")
        assert "not approved" in results[0] and "in every mode" in results[0], (command, results)
    assert not (cli.home / "x").exists()
