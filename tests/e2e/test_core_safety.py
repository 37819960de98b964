"""Safety in the core, through the real `circle`: trust for every session, the data folder's modes,
project settings read per key, and the mode hooks are told."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_is_0700_and_the_store_and_its_files_0600(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("hi"))
    fresh = cli.home.parent / "fresh-home"
    done = cli.run("trust", str(cli.workspace), env=cli.env(CIRCLE_HOME=str(fresh)))
    assert done.returncode == 0, done.stderr
    done = cli.run("-p", "hello", env=cli.env(CIRCLE_HOME=str(fresh)))
    assert done.returncode == 0, done.stderr
    assert _mode(fresh) == 0o700
    stored = [p for p in fresh.iterdir() if p.name.startswith("circle.sqlite")]
    assert stored and all(_mode(p) == 0o600 for p in stored), [(p.name, oct(_mode(p))) for p in stored]


def test_an_older_data_folder_and_store_are_made_private(cli: Circle) -> None:
    older = cli.home.parent / "older-home"
    assert cli.run("trust", str(cli.workspace), env=cli.env(CIRCLE_HOME=str(older))).returncode == 0
    older.chmod(0o755)
    (older / "circle.sqlite").chmod(0o644)
    cli.gateway.enqueue(chat_text("hi"))
    done = cli.run("-p", "hello", env=cli.env(CIRCLE_HOME=str(older)))
    assert done.returncode == 0, done.stderr
    assert _mode(older) == 0o700
    assert _mode(older / "circle.sqlite") == 0o600


RECORD_MODE = f"""#!{sys.executable}
import json, sys
call = json.load(sys.stdin)
with open(sys.argv[1], "a") as seen:
    seen.write(call["hook_event_name"] + " " + call["permission_mode"] + "\\n")
"""


def test_hooks_are_told_the_approval_mode_in_claude_codes_names(cli: Circle) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    script = cli.home / "record.py"
    script.write_text(RECORD_MODE)
    script.chmod(0o755)
    seen = cli.home / "seen.txt"
    hook = {"type": "command", "command": f"{script} {seen}"}
    (cli.home / "hooks.json").write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [{"matcher": "ls", "hooks": [hook]}], "Stop": [{"hooks": [hook]}]}}
        )
    )
    cases = {
        (): "default",
        ("--approval-mode", "accept-edits"): "acceptEdits",
        ("--approval-mode", "read-only"): "readOnly",
        ("--yolo",): "bypassPermissions",
    }
    for flags, expected in cases.items():
        seen.write_text("")
        cli.gateway.enqueue(chat_tool_calls([("c1", "ls", {})]), chat_text("Done."))
        done = cli.run("-p", *flags, "go")
        assert done.returncode == 0, done.stderr
        assert seen.read_text().split("\n")[:-1] == [f"PreToolUse {expected}", f"Stop {expected}"], flags


def test_hooks_are_told_plan_mode_while_it_is_on(cli: Circle) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    script = cli.home / "record.py"
    script.write_text(RECORD_MODE)
    script.chmod(0o755)
    seen = cli.home / "seen.txt"
    hook = {"type": "command", "command": f"{script} {seen}"}
    (cli.home / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [hook]}]}}))
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "plan_enter", {})]),
        chat_tool_calls([("c2", "ls", {})]),
        chat_text("Planned."),
    )
    done = cli.run("-p", "--approval-mode", "accept-edits", "plan it")
    assert done.returncode == 0, done.stderr
    assert seen.read_text().split("\n")[:-1] == ["PreToolUse acceptEdits", "PreToolUse plan"]
