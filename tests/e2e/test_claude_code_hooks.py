"""A hooks.json written for Claude Code, through the installed `circle`: its file hook guards every
tool that changes files, and approval rules judge each part of a command."""

from __future__ import annotations

import json
import sys
from typing import Any

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle

Call = tuple[str, str, dict[str, Any]]

# Claude Code's "protect files" hook: it reads tool_input.file_path and blocks protected files.
PROTECT = f"""#!{sys.executable}
import json, sys
call = json.load(sys.stdin)
path = call["tool_input"].get("file_path") or ""
if path.startswith("protected/") or path.endswith(".lock"):
    print(f"hook: {{path}} is protected", file=sys.stderr)
    sys.exit(2)
"""


def run_calls(cli: Circle, calls: list[Call], *flags: str) -> list[str]:
    """Script one round of ``calls`` and a final answer; return the tool results the model got."""
    cli.gateway.enqueue(chat_tool_calls(calls), chat_text("Done."))
    done = cli.run("-p", *flags, "go", env=cli.env(HOME=str(cli.home / "fake-home")))
    assert done.returncode == 0, done.stderr
    return [m["content"] for m in cli.gateway.requests[-1].json()["messages"] if m["role"] == "tool"]


def install_hook(cli: Circle, matcher: str) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    script = cli.home / "protect.py"
    script.write_text(PROTECT)
    script.chmod(0o755)
    hook = {"type": "command", "command": str(script), "timeout": 20}
    (cli.home / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]}]}})
    )


def test_a_claude_code_write_edit_hook_blocks_apply_patch_and_delete(cli: Circle) -> None:
    install_hook(cli, "Write|Edit|MultiEdit")
    (cli.workspace / "protected").mkdir()
    (cli.workspace / "protected" / "a.txt").write_text("old\n")
    (cli.workspace / "protected" / "b.txt").write_text("keep\n")
    (cli.workspace / "free.txt").write_text("old\n")
    patch = "*** Begin Patch\n*** Update File: protected/a.txt\n@@\n-old\n+new\n*** End Patch"
    free = "*** Begin Patch\n*** Update File: free.txt\n@@\n-old\n+new\n*** End Patch"
    calls: list[Call] = [
        ("c1", "apply_patch", {"patch": patch}),
        ("c2", "delete", {"file_path": "protected/b.txt"}),
        ("c3", "apply_patch", {"patch": free}),
        ("c4", "write_file", {"file_path": "deps.lock", "content": "x"}),
    ]
    results = run_calls(cli, calls, "--yolo")
    assert "blocked by a PreToolUse hook" in results[0] and "protected/a.txt is protected" in results[0]
    assert "blocked by a PreToolUse hook" in results[1] and "protected/b.txt is protected" in results[1]
    assert "blocked" not in results[2], results[2]
    assert "deps.lock is protected" in results[3]
    assert (cli.workspace / "protected" / "a.txt").read_text() == "old\n"
    assert (cli.workspace / "protected" / "b.txt").read_text() == "keep\n"
    assert (cli.workspace / "free.txt").read_text() == "new\n"
    assert not (cli.workspace / "deps.lock").exists()


def test_a_deny_rule_stops_a_disguised_command_and_a_prefix_allow_does_not_cover_a_chain(cli: Circle) -> None:
    cli.run("trust", str(cli.workspace))
    cli.home.mkdir(parents=True, exist_ok=True)
    rules = [
        {"tool": "execute", "pattern": "touch pushed*", "effect": "deny"},
        {"tool": "execute", "pattern": "echo *", "effect": "allow"},
    ]
    (cli.home / "approvals.json").write_text(json.dumps(rules))
    calls: list[Call] = [
        ("c1", "execute", {"command": "cd . && command touch  pushed.txt"}),
        ("c2", "execute", {"command": "echo hi && touch chained.txt"}),
        ("c3", "execute", {"command": "$(echo touch) pushed2.txt"}),
        ("c4", "execute", {"command": "echo hi > said.txt"}),
    ]
    results = run_calls(cli, calls)
    assert "denied by your approvals.json" in results[0] and "touch pushed*" in results[0]
    assert "execute asks in default mode" in results[1]
    assert "not approved" in results[2] and _unknown_until_it_runs(results[2])
    assert "[exit code 0]" in results[3]
    assert (cli.workspace / "said.txt").read_text() == "hi\n"
    assert not any((cli.workspace / name).exists() for name in ("pushed.txt", "pushed2.txt", "chained.txt"))
    yolo = run_calls(cli, [("c5", "execute", {"command": "$(echo touch) pushed3.txt"})], "--yolo")
    assert "not approved" in yolo[0] and _unknown_until_it_runs(yolo[0])
    assert not (cli.workspace / "pushed3.txt").exists()


def _unknown_until_it_runs(result: str) -> bool:
    """Refused as a command whose program is known only when it runs (by the rules or as risky)."""
    return "a deny rule might match what this command runs" in result or "known only at run time" in result
