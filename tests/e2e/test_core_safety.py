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


def test_yolo_in_an_untrusted_folder_runs_nothing(untrusted: Circle) -> None:
    untrusted.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "touch ran"})]), chat_text("Done.")
    )
    done = untrusted.run("-p", "--yolo", "x")
    assert done.returncode == 1
    assert done.stderr == (
        f"circle: {untrusted.workspace} is not trusted: run `circle trust {untrusted.workspace}` first\n"
    )
    assert not (untrusted.workspace / "ran").exists()
    assert not [r for r in untrusted.gateway.requests if r.method == "POST"]


def test_yolo_in_line_mode_still_asks_to_trust_the_folder(untrusted: Circle) -> None:
    untrusted.gateway.enqueue(chat_text("Trusted."))
    declined = untrusted.run("--line", "--yolo", stdin="n\nhello\n")
    assert declined.returncode == 1 and "is not trusted yet" in declined.stderr
    assert not [r for r in untrusted.gateway.requests if r.method == "POST"]
    accepted = untrusted.run("--line", "--yolo", stdin="y\nhello\n")
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout == "Trusted.\n"


def _project_settings(cli: Circle, values: dict[str, object]) -> Path:
    (cli.workspace / ".circle").mkdir(exist_ok=True)
    path = cli.workspace / ".circle" / "settings.json"
    path.write_text(json.dumps(values))
    return path


def test_a_trusted_projects_settings_count_key_by_key_but_not_the_persons_alone(cli: Circle) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "settings.json").write_text(json.dumps({"model": "mine", "thinking": "low"}))
    project = _project_settings(
        cli,
        {
            "model": "project-model",
            "approval_mode": "auto",
            "endpoint": {"base_url": "http://127.0.0.1:9/v1"},
        },
    )
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "touch ran"})]), chat_text("Done."))
    env = cli.env()
    env.pop("CIRCLE_MODEL")
    done = cli.run("-p", "go", env=env)
    assert done.returncode == 0, done.stderr
    first = next(r for r in cli.gateway.requests if r.method == "POST").json()
    assert first["model"] == "project-model"  # the project's model, through the person's endpoint
    assert not (cli.workspace / "ran").exists()  # its approval_mode is not read: default mode
    assert f"circle: {project}: approval_mode is left out (only your settings.json sets it)" in done.stderr
    assert f"circle: {project}: endpoint is left out" in done.stderr


def test_an_untrusted_projects_settings_are_not_read(untrusted: Circle) -> None:
    _project_settings(untrusted, {"model": "project-model"})
    untrusted.gateway.enqueue(chat_text("hi"))
    assert untrusted.run("--line", stdin="y\nhello\n").returncode == 0
    assert untrusted.gateway.requests[-1].json()["model"] == "test-model"


def test_circle_settings_says_where_each_value_came_from(untrusted: Circle) -> None:
    cli = untrusted
    cli.home.mkdir(parents=True, exist_ok=True)
    person = cli.home / "settings.json"
    person.write_text(json.dumps({"model": "mine", "budget_usd": 2, "sandbox": "workspace-write"}))
    project = _project_settings(cli, {"thinking": "high", "sandbox": "off", "budget_usd": 9})
    before = cli.run("settings", str(cli.workspace))
    assert before.returncode == 0, before.stderr
    assert f"project settings: {project} (not read: the folder is not trusted;" in before.stdout
    assert "thinking" not in before.stdout
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    after = cli.run("settings", str(cli.workspace))
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines() == [
        f"settings: {person}",
        f"project settings: {project} (read: the folder is trusted)",
        f'  model = "mine"  (from {person}; CIRCLE_MODEL in the environment beats it)',
        f'  thinking = "high"  (from {project})',
        f"  budget_usd = 2.0  (from {person})",
        f'  sandbox = "workspace-write"  (from {person})',
        f"  {project}: sandbox is left out (only your settings.json sets it)",
        f"  {project}: budget_usd is left out (a project may lower it, not raise it)",
    ]
